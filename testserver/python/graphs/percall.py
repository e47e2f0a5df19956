"""The per-call mode of LangChain's HumanInTheLoopMiddleware, as ../graphs/percall.js.

Here it is the real middleware (`interrupt_mode="per_call"`, langchain >= 1.4.6):
every gated tool call raises an interrupt of its own, {type: "tool_approval",
tool_call_id, name, args, description}, with a response schema listing the
decisions allowed for that tool, answered by interrupt id with ONE decision
object, which LangGraph checks against that schema (a mismatch fails the run).

The input is the JS graph's: {"topic": ...}. A topic that contains "two"
proposes two calls at once (delete_records, then send_email); the spelling is
always Python's (tool_call_id, edited_action).
"""

from typing import Annotated, Any

from langchain.agents import AgentState, create_agent
from langchain.agents.middleware import AgentMiddleware, HumanInTheLoopMiddleware
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from pydantic import Field
from typing_extensions import NotRequired

from agent import ScriptedModel, _ran, delete_records

# An address, as the JS graph's z.string().email(): the pattern is what
# LangGraph checks an edit against, the format what a client shows.
Email = Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", json_schema_extra={"format": "email"})]


@tool
def send_email(to: Email, subject: str, body: str) -> str:
    """Send an email"""
    return _ran("send_email", {"to": to, "subject": subject, "body": body})



class TopicState(AgentState):
    topic: NotRequired[str]


class TopicToMessage(AgentMiddleware):
    """Turns the JS graph's input {"topic"} into the scripted model's first message."""

    state_schema = TopicState

    def before_agent(self, state: TopicState, runtime: Any) -> dict[str, Any] | None:
        if state.get("messages"):
            return None
        scenario = "percall-two" if "two" in state.get("topic", "") else "percall"
        return {"messages": [HumanMessage(scenario)]}


graph = create_agent(
    model=ScriptedModel(),
    tools=[send_email, delete_records],
    middleware=[
        TopicToMessage(),
        HumanInTheLoopMiddleware(
            interrupt_on={
                "send_email": {"allowed_decisions": ["approve", "edit", "reject", "respond"]},
                "delete_records": {"allowed_decisions": ["approve", "reject"]},
            },
            interrupt_mode="per_call",
        ),
    ],
)
