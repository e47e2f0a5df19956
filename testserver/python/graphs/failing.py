"""Runs that fail: the node raises, so the thread ends in status "error"
(and, on the Python server, carries the run's error on the thread). With
topic "charge" it first asks, then raises after its interrupt returned unless
the answer is "charge-offline": the answer was taken when the run failed, as
../../graphs/failing.js."""

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from common import State


def explode(state: State) -> dict:
    if state.get("topic") == "charge":
        answer = interrupt("The payment gateway is flaky. Charge order 7 now? (yes, or charge-offline)")
        if answer != "charge-offline":
            raise ValueError(f"the payment gateway refused the charge; answer was '{answer}'")
        return {"log": [{"node": "explode", "reply": answer}]}
    raise ValueError(f"the warehouse API refused the request ({state.get('topic') or 'no topic'})")


graph = StateGraph(State).add_node("explode", explode).add_edge(START, "explode").add_edge("explode", END).compile()
