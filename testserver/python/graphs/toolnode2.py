"""Two tools that each call interrupt(), called in one ToolNode step, as
../../graphs/toolnode2.js: one task raising two interrupts. With langgraph
1.2.20 each interrupt() has its own id; the Python ToolNode runs both calls
at once, so both may wait together."""

import json

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt


@tool
def confirm_restart(target: str) -> str:
    """confirm_restart"""
    return f"confirm_restart got {json.dumps(interrupt(f'Restart {target} now? (yes/no)'))}"


@tool
def pick_window(target: str) -> str:
    """pick_window"""
    return f"pick_window got {json.dumps(interrupt(f'Which maintenance window for {target}?'))}"


def agent(state: MessagesState) -> dict:
    calls = [
        {"name": "confirm_restart", "args": {"target": "db-1"}, "id": "call_restart", "type": "tool_call"},
        {"name": "pick_window", "args": {"target": "db-1"}, "id": "call_window", "type": "tool_call"},
    ]
    return {"messages": [AIMessage(content="", tool_calls=calls)]}


graph = (
    StateGraph(MessagesState)
    .add_node("agent", agent)
    .add_node("tools", ToolNode([confirm_restart, pick_window]))
    .add_edge(START, "agent")
    .add_edge("agent", "tools")
    .add_edge("tools", END)
    .compile()
)
