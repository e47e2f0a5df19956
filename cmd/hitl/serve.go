package main

import (
	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/hub"
	"github.com/hitl-sh/hitl/hub/serve"
)

func serveCmd(e *env) *cobra.Command {
	o := &serve.Options{}
	cmd := &cobra.Command{
		Use:   "serve --ssh ADDR | --http ADDR",
		Short: "Serve the team's inbox: reviewers ssh in and land in the reviewer",
		Long: `serve holds the backend settings and credentials in one process and serves the
reviewer to the team over SSH: a reviewer runs ssh -p PORT HOST and lands in
the inbox, with nothing installed. Who they are comes from their key (the
config file's team: section), and so does what they may do (role approver or
viewer); rules there ask for two approvers for the tools they name. Every
session shares one watcher of the server. SIGHUP reloads the team; SIGTERM
lets decisions being sent finish, then closes every session.

--http ADDR serves hitl's coordinator protocol to the same team: reviewers
open it with hitl --backend events --url http://ADDR (their token in
HITL_BEARER_TOKEN), coding agents' hooks (hitl hook claude|codex|gemini|cursor) put their
permission requests up with a publisher's token. With a LangGraph server named
(--url, HITL_URL or a profile's url), alone or beside --ssh, it serves that
server's interrupts too, decided under the same roles and rules. With none
named, --http alone serves the hooks' requests only; beside --ssh the hub
reads the default server (http://127.0.0.1:2024), and while none answers
there the sessions say that source is down and serve the hooks' requests.
--hooks-only (with --http) names no server at all: the hub, over SSH too,
serves the requests put up on its door (hooks, publishers) and nothing
else. See docs/hooks.md.

One hub serves several sources in one inbox: --source PROFILE (repeated) or
hub.sources in the config names the profiles (a LangGraph server, A2A
agents, opencode servers), each with its own backend, URL and credentials.
Each is independent: one that cannot be listed is said on the status line
and the others are served. Decisions reach the source of their interrupt,
under the same roles, rules and audit log.

The hub keeps its state (agents' requests, their approvals and answers, the
event log, the team's audit log) in SQLite in the state directory, or in
PostgreSQL with --store postgres://USER@HOST/DB (or hub.store in the config):
hubs on one database serve one team. Nothing is lost on a restart.

ADDR without a host listens on loopback (--ssh :2222); give the address of an
interface (or 0.0.0.0) to be reached from elsewhere. The HTTP door serves TLS
with --tls-cert and --tls-key; a plain-HTTP door off loopback is warned about
at start and by --check. See docs/team.md.`,
		Example: `  hitl serve --check
  hitl serve --ssh :2222
  ssh -p 2222 localhost
  hitl serve --http :8700
  hitl serve --http :8700 --url http://127.0.0.1:2024
  hitl serve --ssh :2222 --http :8700 --hooks-only
  hitl serve --ssh :2222 --source graphs --source support-agent --source opencode
  hitl serve --http 0.0.0.0:8700 --tls-cert door.crt --tls-key door.key`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Stdout, o.Stderr, o.Getenv, o.Flags, o.Warn = e.stdout, e.stderr, e.getenv, e.flags, e.warn
			o.Open = func() (*config.Settings, client.Backend, error) {
				a, err := e.open(0)
				if err != nil {
					return nil, nil, err
				}
				return a.settings, a.Backend, nil
			}
			o.NewBackend = func(s *config.Settings) (client.Backend, error) { return newBackend(s, 0) }
			o.Hide = e.hideSecrets
			o.Hangup = func(reload *func()) { onHangup.Store(reload) }
			return serve.Run(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.SSH, "ssh", "", "serve the reviewer over SSH on ADDR (host:port; no host: loopback)")
	cmd.Flags().StringVar(&o.HTTP, "http", "", "serve the coordinator protocol (reviewers by token, agents' hooks) on ADDR (host:port; no host: loopback)")
	cmd.Flags().StringVar(&o.HostKey, "host-key", "", "the SSH host key file (default: created on first start in the state directory)")
	cmd.Flags().DurationVar(&o.Idle, "idle", hub.DefaultIdle, "close a session after this long without a key")
	cmd.Flags().BoolVar(&o.Check, "check", false, "check the team config, the store (reached, its schema, writable) and the door's TLS and address; say what is wrong, and exit")
	cmd.Flags().StringVar(&o.TLSCert, "tls-cert", "", "serve the HTTP door over TLS with this certificate (PEM; with --tls-key)")
	cmd.Flags().StringVar(&o.TLSKey, "tls-key", "", "the private key of --tls-cert (PEM)")
	cmd.Flags().BoolVar(&o.HooksOnly, "hooks-only", false, "serve no server's interrupts, only the requests put up on the HTTP door (coding agents' hooks, publishers); with --http")
	cmd.Flags().StringArrayVar(&o.Sources, "source", nil, "serve this profile's server in the inbox (repeat for several: LangGraph, A2A, opencode; config: hub.sources)")
	cmd.Flags().StringVar(&o.Store, "store", "", "the hub's store: postgres://USER@HOST/DB (hubs may share one), sqlite:PATH (default: SQLite in the state directory; config: hub.store)")
	return cmd
}
