"""One node that calls interrupt() twice, as ../../graphs/twice.js: a yes/no
question, then (on "yes") the details. Answering the first runs the node
again: the first interrupt() returns the answer and the second raises a new
interrupt of the same task (langgraph 1.2.20: an id of its own), and the run
writes no checkpoint. Topic "slow": the node works 3 s after the first
answer (a run a server restart can lose)."""

import time

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from common import State


def ask(state: State) -> dict:
    go = interrupt("Deploy the release to production? (yes/no)")
    if state.get("topic") == "slow":
        time.sleep(3)
    entry = {"node": "ask", "go": go}
    if str(go).strip().lower().startswith("yes"):
        entry["details"] = interrupt("Which regions, and when?")
    return {"log": [entry]}


graph = StateGraph(State).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END).compile()
