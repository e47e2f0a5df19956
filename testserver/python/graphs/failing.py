"""A run that fails: the node raises, so the thread ends in status "error"
(and, on the Python server, carries the run's error on the thread)."""

from langgraph.graph import END, START, StateGraph

from common import State


def explode(state: State) -> dict:
    raise ValueError(f"the warehouse API refused the request ({state.get('topic') or 'no topic'})")


graph = StateGraph(State).add_node("explode", explode).add_edge(START, "explode").add_edge("explode", END).compile()
