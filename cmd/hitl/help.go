package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// What `hitl help` shows besides each command's own text: the commands in
// groups, an example for each, and topics (exit codes, environment, the
// config file) that are also sections of the hitl(1) man page.

// The commands are listed in the order they are added (newRoot), which
// is the order of use, not the alphabet's.
func init() { cobra.EnableCommandSorting = false }

// groups puts each command of the root in one group of `hitl --help`.
var groups = []struct {
	id, title string
	commands  []string
}{
	{"reading", "Reading:", []string{"list", "show", "watch", "conversation", "history"}},
	{"deciding", "Deciding:", []string{"approve", "reject", "edit", "respond", "ignore", "dismiss", "decide", "resume", "check", "forget", "run"}},
	{"team", "A team's hub:", []string{"serve", "hook"}},
	{"setup", "Setup:", []string{"demo", "config", "completion", "version", "help"}},
}

// examples are each command's Example, by command path without "hitl ".
// A test fails if a command has none.
var examples = map[string]string{
	"": `  hitl                                # the reviewer, on the default profile's server
  hitl --url http://127.0.0.1:2024    # the reviewer, on this server
  hitl demo                           # try it with no server at all`,
	"list": `  hitl list
  hitl list --json | jq -r '.[].id'
  hitl list --failed`,
	"show": `  hitl show 3d96
  hitl show 3d96 --json
  hitl show 3d96 --raw > value.json`,
	"watch": `  hitl watch
  hitl watch --json --interval 5s
  hitl watch --exec 'notify-send hitl'
  hitl watch --exec-shell 'jq -r .title | mail -s "review waiting" oncall@example.com'`,
	"conversation": `  hitl conversation 9605
  hitl conversation 9605 --json -n 0`,
	"history": `  hitl history
  hitl history --json -n 0 > decisions.jsonl
  hitl --url http://hub:8700 history --team --by alice --since 24h`,
	"approve": `  hitl approve 3d96
  hitl approve --all --tool send_email --match acme.example --dry-run
  hitl approve 3d96 --dry-run
  hitl approve --thread 9605
  hitl approve 3d96 --action 2 --others reject:"not during business hours"`,
	"reject": `  hitl reject 3d96 -m "wrong customer"
  hitl reject 3d96 -m "stop retrying this" --stop
  hitl reject 3d96 --action 1 -m "too broad" --others approve`,
	"edit": `  hitl edit 3d96 --set subject="Your refund"
  echo '{"to":"jane@example.com","subject":"Refund","body":"Hi Jane"}' | hitl edit 3d96 --args -
  hitl edit 3d96 --field amount=90
  hitl edit 3d96 --action 2 --args notify.json --others approve`,
	"respond": `  hitl respond 3d96 -m "use the audited figure"
  hitl respond 3d96 -m "ship it" --answer yes --answer "next week"
  hitl respond 3d96 --field framework=react --field tests=true --field budget=50
  hitl respond 3d96 --value '{"framework":"react","tests":true,"budget":50}'`,
	"ignore":  `  hitl ignore 4f49`,
	"dismiss": `  hitl dismiss 3d96 -m "duplicate request, handled by phone"`,
	"decide": `  echo '[{"type":"approve"},{"type":"reject","message":"not on a Friday"}]' | hitl decide 85b9 --decisions -
  hitl decide 628d 5e65 --decisions answers.json`,
	"resume": `  hitl resume 3d96 --value '{"decisions":[{"type":"approve"}]}' --dry-run`,
	"check": `  hitl check
  hitl check 3d96`,
	"forget":     `  hitl forget 3d96`,
	"run":        `  hitl run pause apr-7f3a --yes`,
	"run pause":  `  hitl --backend rest run pause apr-7f3a --yes`,
	"run resume": `  hitl --backend rest run resume apr-7f3a --yes`,
	"run cancel": `  hitl --backend rest run cancel apr-7f3a --yes`,
	"demo": `  hitl demo
  hitl demo --serve --listen 127.0.0.1:2024
  hitl demo --burst 1000 --every 0
  hitl demo --backend rest`,
	"config": `  hitl config path
  hitl config show --profile prod`,
	"config init": `  hitl config init && $EDITOR "$(hitl config path)"`,
	"config path": `  $EDITOR "$(hitl config path)"`,
	"config show": `  hitl config show
  hitl config show --profile prod`,
	"version": `  hitl version`,
	"serve": `  hitl serve --check
  hitl serve --ssh 127.0.0.1:2222
  hitl serve --ssh 127.0.0.1:2222 --http 127.0.0.1:8700 --idle 1h`,
	"hook": `  HITL_URL=http://127.0.0.1:8700 HITL_BEARER_TOKEN=$TOKEN hitl hook claude < request.json`,
	"hook claude": `  # in Claude Code's settings.json, hooks.PermissionRequest: {"type":"command","command":"hitl hook claude"}
  HITL_URL=http://127.0.0.1:8700 HITL_BEARER_TOKEN=$TOKEN hitl hook claude --timeout 5m < request.json`,
	"hook codex": `  HITL_URL=http://127.0.0.1:8700 HITL_BEARER_TOKEN=$TOKEN hitl hook codex < request.json`,
	"help": `  hitl help approve
  hitl help exit-codes`,
	"completion":            `  hitl completion bash > ~/.local/share/bash-completion/completions/hitl`,
	"completion bash":       `  hitl completion bash > ~/.local/share/bash-completion/completions/hitl`,
	"completion zsh":        `  hitl completion zsh > "${fpath[1]}/_hitl"`,
	"completion fish":       `  hitl completion fish > ~/.config/fish/completions/hitl.fish`,
	"completion powershell": `  hitl completion powershell | Out-String | Invoke-Expression`,
	"man":                   `  hitl man ./manpages`,
}

// topics are `hitl help TOPIC` pages, and sections of the hitl(1) man page.
var topics = []struct{ name, short, text string }{
	{"exit-codes", "What hitl's exit status means", `hitl exits with:

  0  sent, verified on the server (and the run finished, paused again, or is
     still running), or the command did what it says
  1  error: server unreachable, HTTP error, not sent, outcome unknown (hitl
     check looks again), the run failed after the decision was sent
  2  usage: bad flags, bad JSON, edited args that break the schema, a missing
     message, too many answers, an id shorter than 4 characters, an
     ambiguous id, input over 16 MiB
  3  nothing left to do: it no longer waits (decided from this machine,
     answered elsewhere, its thread deleted), or a filter (--tool) matched
     nothing
  4  refused, nothing sent, and nothing says it was handled: a well-formed
     id (4 or more characters) that no interrupt listed here has (mistyped,
     or answered before this machine saw it), a decision it does not
     allow, another run in progress on its thread, ending a thread whose
     other branches wait, an approval you gave already (hitl serve: --json
     "result": "refused"; yours still stands), a decision a hub refuses you
     (a viewer's token: HTTP 403)
  5  sent, but this server cannot confirm it was yours: it ran the decision
     without showing whose answer the interrupt took (aegra), so another
     reviewer's may have taken effect instead
  6  approval recorded, nothing sent yet: a team rule (hitl serve) asks for
     another approver of this decision; it is sent when one confirms the
     same decision (--json: "result": "approval-recorded")

A script can tell "it no longer waits: already decided, from this machine
or elsewhere" (3) from "it broke" (1), from "refused: no interrupt has
that id, or the decision is not allowed" (4) and from a usage error (2):

  hitl approve 3d96 || [ $? -eq 3 ]`},
	{"environment", "Environment variables hitl reads", `Settings (a flag wins over the variable, the variable over the config file):

  HITL_PROFILE      the config file's profile to use
  HITL_BACKEND      langgraph (default), rest, events, a2a or opencode
  HITL_URL          the server (default http://127.0.0.1:2024)
  HITL_GRAPH        only this graph's interrupts
  HITL_ASSISTANT    only this assistant's interrupts
  HITL_REVIEWER     your name in the audit log (default $USER)
  HITL_THEME        auto (default), light or dark
  HITL_NOTIFY       desktop (default), bell or off
  HITL_LOOK_EVERY   how often a watching reviewer asks a LangGraph server
                    whether anything changed (default 200ms, at least 50ms;
                    look_every)
  HITL_LANGGRAPH_URL  the LangGraph server behind an A2A endpoint of
                    LangGraph (langgraph_url): its questions are read there

Credentials (never printed; hitl config show says "(set, hidden)"):

  HITL_API_KEY       sent as X-Api-Key; else the profile's api_key_env or
                     api_key, then LANGGRAPH_API_KEY, then LANGSMITH_API_KEY
  HITL_BEARER_TOKEN  sent as Authorization: Bearer

Files:

  HITL_CONFIG       the config file (default $XDG_CONFIG_HOME/hitl/config.yaml,
                    ~/.config/hitl/config.yaml)
  XDG_STATE_HOME    the state folder is $XDG_STATE_HOME/hitl
                    (default ~/.local/state/hitl)

The terminal:

  VISUAL, EDITOR    the external editor of the reviewer (ctrl+e)
  NO_COLOR          no colour (every state is also shown in text)
  TERM, TERM_PROGRAM, LC_TERMINAL, KITTY_WINDOW_ID, WT_SESSION
                    which escape sequence a desktop notification uses
  TMUX              notifications are wrapped for tmux

hitl watch --exec gives its command HITL_INTERRUPT_ID, HITL_THREAD_ID,
HITL_GRAPH_ID, HITL_ASSISTANT_ID, HITL_SCHEMA, HITL_TITLE, HITL_SUMMARY and
HITL_SERVER, and leaves hitl's credentials out of its environment.`},
	{"config", "The config file: profiles, keys, precedence", `The config file is YAML, at $HITL_CONFIG, else
$XDG_CONFIG_HOME/hitl/config.yaml (default ~/.config/hitl/config.yaml);
hitl config path prints it, hitl config show the settings in force. A missing
file is fine; a broken one is an error with its line number.

  default_profile: local
  profiles:
    local:
      backend: langgraph          # langgraph | rest | events | a2a | opencode
      url: http://127.0.0.1:2024
      api_key_env: LANGSMITH_API_KEY   # or api_key: … (prefer the variable)
      graph: agent                # only this graph's interrupts
      look_every: 200ms           # ask a LangGraph server whether anything changed (≥ 50ms)
      poll_interval: 2s           # re-read the listing when no change signal came
      reviewer: alice
      notify: desktop             # off | bell | desktop
      theme: auto                 # auto | light | dark
    prod:
      url: https://my-deployment.example
      assistant: 5f1c…            # only this assistant's interrupts
      bearer_token_env: PROD_TOKEN
      headers: {X-Team: payments}
      metadata: {tenant: acme}    # more thread metadata filters
      edit_dialect: edited_action # or edited_args
      timeout: 30s
  keys:                           # the reviewer's keys, action: [keys]
    approve: [a, Y]
    confirm: [ctrl+y]

look_every is how often a watching reviewer (TUI, watch, serve) asks a
LangGraph server whether anything changed: one small request, at least 50ms;
new interrupts show about this long after they happen; idle CPU grows with it.
poll_interval is how often it re-reads the listing when no change signal came
(also to see what other hitl of this machine handled); it costs a LangGraph
server nothing while nothing changed.

Precedence: flag > environment (hitl help environment) > file > default.
A file others can read that holds a secret draws a warning: chmod 600 it.
The key actions and every setting: docs/config.md.`},
}

// withHelp groups the commands, gives each its example and adds the topics.
func withHelp(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, g := range groups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, name := range g.commands {
			for _, c := range root.Commands() {
				if c.Name() == name {
					c.GroupID = g.id
				}
			}
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Example = examples[strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "hitl"), " ")]
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, t := range topics {
		// A topic named like a command (config) is that command's text.
		if c, _, err := root.Find([]string{t.name}); err == nil && c != root {
			c.Long = t.text
			continue
		}
		root.AddCommand(&cobra.Command{Use: t.name, Short: t.short, Long: t.text})
	}
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
}

// manSections are the topics as sections of the hitl(1) man page.
func manSections() string {
	var b strings.Builder
	for _, t := range topics {
		title := strings.ToUpper(strings.ReplaceAll(t.name, "-", " "))
		if t.name == "config" {
			title = "CONFIG FILE"
		}
		// A fenced block keeps the text's lines and columns as written.
		b.WriteString("\n\n# " + title + "\n\n```\n" + t.text + "\n```")
	}
	return b.String()
}
