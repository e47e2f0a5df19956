"""Agent Inbox HumanInterrupt, as ../graphs/inbox.js: a list of one request,
answered with a list of HumanResponse. topic "single" sends the request as a
bare object instead of a list."""

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from common import State


def review(state: State) -> dict:
    request = {
        "action_request": {"action": "post_tweet", "args": {"text": "We shipped v2.0 today! Thanks to everyone who helped."}},
        "config": {"allow_ignore": True, "allow_respond": True, "allow_edit": True, "allow_accept": True},
        "description": "## Post a tweet\n\nThe agent wants to post this on the **company** account.",
    }
    response = interrupt(request if state.get("topic") == "single" else [request])
    return {"log": [{"node": "review", "response": response}]}


graph = StateGraph(State).add_node("review", review).add_edge(START, "review").add_edge("review", END).compile()
