"""Deep-agent style, as ../../graphs/subagent.js: the agent's `task` tool runs
a sub-agent (its own create_agent with the HITL middleware) inside the tool
call. The sub-agent pauses inside the tool; the interrupt surfaces on the
parent's thread and its answer is routed back into the sub-agent. The
parent's tool message carries the sub-agent's last words."""

import json
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool


class Scripted(BaseChatModel):
    """Calls the tools its script names for the first human message's first
    word; after a tool result, answers "done" with every tool result."""

    script: dict[str, list[dict[str, Any]]] = {}

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "Scripted":
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        first = next((m for m in messages if m.type == "human"), None)
        words = str(first.content if first else "").split()
        scenario = words[0] if words else ""
        if messages[-1].type == "tool":
            results = [f"{m.name}: {m.content}" for m in messages if m.type == "tool"]
            message = AIMessage(content="done\n" + "\n".join(results))
        else:
            calls = [{**c, "id": f"call_{scenario}_{i}", "type": "tool_call"} for i, c in enumerate(self.script.get(scenario, []))]
            message = AIMessage(content="" if calls else f"unknown scenario {scenario}", tool_calls=calls)
        return ChatResult(generations=[ChatGeneration(message=message)])


@tool
def send_email(to: str, subject: str, body: str) -> str:
    """Send an email"""
    return "ran send_email " + json.dumps({"to": to, "subject": subject, "body": body}, separators=(",", ":"))


worker = create_agent(
    model=Scripted(
        script={"email": [{"name": "send_email", "args": {"to": "customer@example.com", "subject": "Your refund", "body": "It is on its way."}}]}
    ),
    tools=[send_email],
    middleware=[HumanInTheLoopMiddleware(interrupt_on={"send_email": {"allowed_decisions": ["approve", "edit", "reject"]}})],
)


@tool
def task(description: str) -> str:
    """Hand a task to a sub-agent"""
    out = worker.invoke({"messages": [{"role": "user", "content": description}]})
    return str(out["messages"][-1].content)


graph = create_agent(
    model=Scripted(script={"email": [{"name": "task", "args": {"description": "email the customer about the refund"}}]}),
    tools=[task],
)
