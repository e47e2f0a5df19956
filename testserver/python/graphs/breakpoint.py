"""A static breakpoint, as ../graphs/breakpoint.js: the thread stops before
"act" with no interrupt value."""

from langgraph.graph import END, START, StateGraph

from common import State

graph = (
    StateGraph(State)
    .add_node("plan", lambda state: {"log": [{"node": "plan"}]})
    .add_node("act", lambda state: {"log": [{"node": "act"}]})
    .add_edge(START, "plan")
    .add_edge("plan", "act")
    .add_edge("act", END)
    .compile(interrupt_before=["act"])
)
