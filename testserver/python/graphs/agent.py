"""A real LangChain agent with the real HumanInTheLoopMiddleware, as ../graphs/agent.js.

Only the chat model is scripted: it reads the scenario from the first human
message, so every thread behaves the same whatever else runs on the server.
"""

import json
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool


def _ran(name: str, args: dict[str, Any]) -> str:
    # The same text as the JS tools: a test reads from the thread's messages
    # what reached the graph after a decision.
    return f"ran {name} {json.dumps(args, separators=(',', ':'))}"


@tool
def send_email(to: str, subject: str, body: str, cc: list[str] | None = None) -> str:
    """Send an email"""
    args: dict[str, Any] = {"to": to, "subject": subject, "body": body}
    if cc is not None:
        args["cc"] = cc
    return _ran("send_email", args)


@tool
def issue_refund(order_id: str, amount: float, currency: str) -> str:
    """Refund an order"""
    return _ran("issue_refund", {"order_id": order_id, "amount": amount, "currency": currency})


@tool
def delete_records(table: str, where: str) -> str:
    """Delete rows from a table"""
    return _ran("delete_records", {"table": table, "where": where})


@tool
def notify(channel: str, text: str) -> str:
    """Post a message to a channel"""
    return _ran("notify", {"channel": channel, "text": text})


@tool
def lookup_order(order_id: str) -> str:
    """Look an order up"""
    return _ran("lookup_order", {"order_id": order_id})


# lookup_order is configured True: every decision the middleware has
# (approve, edit, reject and respond; the JS middleware's true has no respond).
TOOLS = [send_email, issue_refund, delete_records, notify, lookup_order]

SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "email": [
        {
            "name": "send_email",
            "args": {
                "to": "customer@example.com",
                "subject": "Your refund",
                "body": "Hello,\n\nYour refund of $12.50 is on its way.\n",
                "cc": ["support@example.com"],
            },
        }
    ],
    "refund": [{"name": "issue_refund", "args": {"order_id": "A-1001", "amount": 12.5, "currency": "EUR"}}],
    "ops": [
        {"name": "delete_records", "args": {"table": "sessions", "where": "last_seen < now() - interval '90 days'"}},
        {"name": "notify", "args": {"channel": "#ops", "text": "Pruned stale sessions"}},
    ],
    "lookup": [{"name": "lookup_order", "args": {"order_id": "A-1001"}}],
    # The per-call graph's scenarios (percall.py): one gated call, or two at once.
    "percall": [
        {
            "name": "send_email",
            "args": {"to": "customer@example.com", "subject": "Your refund", "body": "Hello,\n\nYour refund is on its way."},
        }
    ],
    "percall-two": [
        {"name": "delete_records", "args": {"table": "sessions", "where": "last_seen < now() - interval '90 days'"}},
        {
            "name": "send_email",
            "args": {"to": "customer@example.com", "subject": "Your refund", "body": "Hello,\n\nYour refund is on its way."},
        },
    ],
}


class ScriptedModel(BaseChatModel):
    """A chat model that needs no network: the tool calls come from SCENARIOS."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        first = next((m for m in messages if m.type == "human"), None)
        words = str(first.content if first else "").split()
        scenario = words[0] if words else ""
        last = messages[-1]
        if last.type == "tool":
            results = [f"{m.name}: {m.content}" for m in messages if m.type == "tool"]
            message = AIMessage(content="done\n" + "\n".join(results))
        else:
            calls = [
                {**c, "id": f"call_{scenario}_{i}", "type": "tool_call"} for i, c in enumerate(SCENARIOS.get(scenario, []))
            ]
            message = AIMessage(content="" if calls else f"unknown scenario {scenario}", tool_calls=calls)
        return ChatResult(generations=[ChatGeneration(message=message)])


graph = create_agent(
    model=ScriptedModel(),
    tools=TOOLS,
    middleware=[
        HumanInTheLoopMiddleware(
            interrupt_on={
                "send_email": {"allowed_decisions": ["approve", "edit", "reject"]},
                "issue_refund": {
                    "allowed_decisions": ["approve", "edit", "reject"],
                    "args_schema": {
                        "type": "object",
                        "properties": {
                            "order_id": {"type": "string"},
                            "amount": {"type": "number", "maximum": 100},
                            "currency": {"type": "string"},
                        },
                        "required": ["order_id", "amount", "currency"],
                    },
                },
                "delete_records": {"allowed_decisions": ["approve", "reject"], "description": "**Destructive**: deletes rows."},
                "notify": {"allowed_decisions": ["approve", "edit", "reject"]},
                "lookup_order": True,
            },
            description_prefix="Tool execution pending approval",
        )
    ],
)
