"""Natural-language prompts, as ../graphs/prompt.js: a plain string, or an
object carrying hitl_prompt / hitl_context / hitl_phase. The reply is free text."""

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from common import State


def ask(state: State) -> dict:
    if state.get("topic") == "object":
        value = {
            "hitl_phase": "awaiting_response",
            "hitl_prompt": "I found two addresses for ACME. Which one should I use?",
            "hitl_context": {"source_tool": "lookup_customer", "args": {"name": "ACME"}},
        }
    else:
        value = "Customer not found. What is the customer's email address?"
    reply = interrupt(value)
    return {"log": [{"node": "ask", "reply": reply}]}


graph = StateGraph(State).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END).compile()
