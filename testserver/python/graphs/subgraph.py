"""A subgraph that interrupts: the parent's node "delegate" runs a compiled
graph whose node "approve" asks, so the interrupt comes from a nested
namespace. The answer is logged by the subgraph and reaches the parent's state."""

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from common import State


def approve(state: State) -> dict:
    value = interrupt({"question": f"Deploy {state.get('topic') or 'the release'}?", "step": "inner"})
    return {"log": [{"node": "approve", "value": value}]}


inner = StateGraph(State).add_node("approve", approve).add_edge(START, "approve").add_edge("approve", END).compile()

graph = (
    StateGraph(State)
    .add_node("prepare", lambda state: {"log": [{"node": "prepare"}]})
    .add_node("delegate", inner)
    .add_edge(START, "prepare")
    .add_edge("prepare", "delegate")
    .add_edge("delegate", END)
    .compile()
)
