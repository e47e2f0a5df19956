// Package serve is hitl serve's wiring: the team read from the config file
// (and again on SIGHUP), the store opened, the sources built (the
// LangGraph server, A2A agents and opencode servers the command or
// hub.sources names, and the requests put up on the HTTP door), the
// shared watcher and its gate, the SSH server and the coordinator's HTTP
// door, with their TLS and loopback rules; and serve --check. cmd/hitl
// keeps the command and its flags, and opens the backends: it alone picks
// one (Options.Open, Options.NewBackend).
package serve
