package config

// Starter is the config file `hitl config init` writes: one profile, each
// setting with what it does. Every line that sets something is a default
// or commented out, so the file changes nothing until it is edited.
const Starter = `# hitl config (hitl config show prints the settings in force).
# Precedence: flag > environment variable (HITL_*) > this file > default.

default_profile: local

profiles:
  local:
    # langgraph (LangGraph Agent Server, langgraph dev / langgraphjs dev),
    # rest (REST HITL API) or events (event-stream coordinator).
    backend: langgraph
    # The server's API: langgraph dev and langgraphjs dev print it.
    url: http://127.0.0.1:2024
    # The name of the environment variable holding the API key (keep the
    # key itself out of this file).
    # api_key_env: LANGSMITH_API_KEY
    # bearer_token_env: MY_TOKEN
    # headers: {"X-Tenant": "acme"}
    # Only interrupts of this graph / assistant:
    # graph: agent
    # assistant: 00000000-0000-0000-0000-000000000000
    # Your name in the audit log and in the run's metadata (default: $USER).
    # reviewer: dana
    # How you hear of new interrupts: off, bell or desktop.
    notify: desktop
    # Your terminal's background: auto (asked of the terminal), light or dark.
    theme: auto
    # look_every: how often a watching reviewer (TUI, watch, serve) asks a
    # LangGraph server whether anything changed: one small request, at
    # least 50ms; new interrupts show about this long after they happen;
    # idle CPU grows with it. A TUI left alone (no key for three minutes,
    # no focus) looks every 6s, or every look_every if longer; a key
    # brings the usual rate back at once. watch and serve keep this rate.
    # look_every: 200ms
    # poll_interval: how often it re-reads the listing when no change
    # signal came (also to see what other hitl of this machine handled);
    # costs a LangGraph server nothing while nothing changed.
    # poll_interval: 2s
    # How long one request may take.
    # timeout: 30s

# Rebind keys: action name -> keys (docs/config.md lists the actions).
# keys:
#   approve: ["a", "y"]
`
