"""The structured-decision node, as ../graphs/questions.js: approve ends, edit
loops back to the agent (which asks again), reject ends with the reason."""

from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from common import State


def base(state: State) -> dict:
    rounds = sum(1 for e in state.get("log", []) if e.get("node") == "base")
    return {"log": [{"node": "base", "round": rounds + 1}]}


def human_feedback(state: State) -> Command[Literal["base", "__end__"]]:
    response = interrupt(
        {
            "questions": ["What framework do you prefer?", "Should I include tests?"],
            "allowed_decisions": ["approve", "edit", "reject"],
            "prompt": "The agent needs your input on the following:",
            "context": {"message_count": len(state.get("log", [])), "topic": state.get("topic", "")},
        }
    )
    entry = {"node": "human_feedback", "response": response}
    if isinstance(response, dict) and response.get("decision") == "edit":
        return Command(goto="base", update={"log": [entry]})
    return Command(goto=END, update={"log": [entry]})


graph = (
    StateGraph(State)
    .add_node("base", base)
    .add_node("human_feedback", human_feedback)
    .add_edge(START, "base")
    .add_edge("base", "human_feedback")
    .compile()
)
