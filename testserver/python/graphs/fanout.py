"""LangGraph `Send` fan-out, as ../graphs/fanout.js: one branch per item of
`topic` (a comma list, default three), each of which interrupts. Each branch
logs the resume value it received, so a test can tell which decision reached
which branch."""

import asyncio

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send, interrupt

from common import State


def items(topic: str) -> list[str]:
    return [s.strip() for s in (topic or "alpha,beta,gamma").split(",") if s.strip()]


async def branch(arg: dict) -> dict:
    value = interrupt({"question": f"Ship {arg['item']}?", "item": arg["item"]})
    # An answer {"sleep": ms} keeps the branch busy that long: a thread with a
    # run in progress while other branches still wait.
    if isinstance(value, dict) and value.get("sleep"):
        await asyncio.sleep(value["sleep"] / 1000)
    return {"log": [{"node": "branch", "item": arg["item"], "value": value}]}


graph = (
    StateGraph(State)
    .add_node("branch", branch)
    .add_conditional_edges(START, lambda state: [Send("branch", {"item": i}) for i in items(state.get("topic", ""))])
    .add_edge("branch", END)
    .compile()
)
