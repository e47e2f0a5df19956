"""A run that takes a while, as ../graphs/slow.js, to observe a busy thread."""

import asyncio

from langgraph.graph import END, START, StateGraph

from common import State


async def wait(state: State) -> dict:
    await asyncio.sleep(2.5)
    return {"log": [{"node": "wait"}]}


graph = StateGraph(State).add_node("wait", wait).add_edge(START, "wait").add_edge("wait", END).compile()
