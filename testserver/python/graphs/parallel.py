"""Two branches that interrupt at once in one thread, as ../graphs/parallel.js:
one with a payload of no known shape (shown raw), one with a plain prompt."""

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from common import State


def left(state: State) -> dict:
    value = interrupt({"kind": "budget_check", "limits": {"daily": 100, "currency": "USD"}, "ratio": 0.1})
    return {"log": [{"node": "left", "value": value}]}


def right(state: State) -> dict:
    return {"log": [{"node": "right", "value": interrupt("Which region should the replica go to?")}]}


graph = (
    StateGraph(State)
    .add_node("left", left)
    .add_node("right", right)
    .add_edge(START, "left")
    .add_edge(START, "right")
    .add_edge("left", END)
    .add_edge("right", END)
    .compile()
)
