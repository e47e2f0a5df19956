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
    # How often the reviewer and watch look for new work; how long a request may take.
    # poll_interval: 2s
    # timeout: 30s
    # How often the reviewer looks at a LangGraph server for changes (at
    # least 50ms): an arrival shows about this plus two round trips later,
    # and an idle reviewer's CPU grows with the looks a second.
    # look_every: 200ms

# Rebind keys: action name -> keys (docs/config.md lists the actions).
# keys:
#   approve: ["a", "y"]
`
