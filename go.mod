module github.com/hitl-sh/hitl

go 1.26.8

require (
	github.com/charmbracelet/x/ansi v0.11.9
	github.com/go-resty/resty/v2 v2.17.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/spf13/cobra v1.10.2
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/text v0.28.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/clipperhouse/displaywidth v0.11.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/lucasb-eyer/go-colorful v1.4.1 // indirect
	github.com/mattn/go-runewidth v0.0.27 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/net v0.43.0 // indirect
	golang.org/x/sys v0.35.0 // indirect
)
