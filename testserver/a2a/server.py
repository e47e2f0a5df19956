"""A scripted A2A agent for hitl's tests: no model, only waiting.

It serves A2A protocol 1.0 over JSON-RPC at / (with the 0.3 method names on
the same endpoint: enable_v0_3_compat) through the real a2a-sdk server, and
waits in input-required the way real agents do. The first word of the
message that starts a task picks what it asks:

  text       a plain question in the status message (answered with text)
  strands    Strands' tool approval: a text part and a data part
             {"interrupts": [{"interruptId", "name", "reason": <ToolUse>}]}
             (answered with {"interruptResponse": {"interruptId", "response"}})
  langgraph  LangGraph's interrupt artifact {"id", "value"}: a
             HumanInTheLoopMiddleware request for send_email (answered
             with {"resume": ...})
  form       the same artifact with a response_schema
  paths      Strands' interrupt whose reason is not a tool call: the
             approval hook of Strands' docs, {"paths": [...]}
  again      a text question; its answer is followed by a second question
  unknown    a data part of no known shape
  gemini     Gemini CLI's tool-call confirmation, replayed as its agent
             server (packages/a2a-server, agent/task.ts) sends it: a
             working-state update with the tool call "scheduled"
             (metadata coderAgent.kind tool-call-update), one with it
             "awaiting_approval" and its confirmationDetails (kind
             tool-call-confirmation), then input-required with no message
             (kind state-change); answered with a data part
             {"callId", "outcome"}. gemini-edit: the same for a file edit
             (its diff).

Every message a task acts on after it started is recorded, as the server
decoded it (protobuf JSON), and served at GET /received/{task_id}: what the
tests assert. As a real agent does with an interrupt already answered, a
message that reaches the executor after its question was answered (a2a-sdk
runs the executor for a second message sent while the first is handled) is
not acted on: it is recorded at GET /ignored/{task_id}.
python server.py PORT
"""

import json
import sys
import uuid

import uvicorn
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2a.helpers import new_data_part, new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandlerV2
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, TaskState

received: dict[str, list] = {}
ignored: dict[str, list] = {}
answered: set[str] = set()
scenario_of: dict[str, str] = {}
asked_again: set[str] = set()

TOOL_USE = {
    "toolUseId": "tooluse_send_email_1",
    "name": "send_email",
    "input": {"to": "dana@customer.example", "subject": "Refund", "body": "Your refund is on its way."},
}


def strands_id(task_id: str) -> str:
    return "v1:before_tool_call:tooluse_send_email_1:" + str(uuid.uuid5(uuid.NAMESPACE_URL, task_id))


def interrupt_id(task_id: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_OID, task_id).hex


MIDDLEWARE = {
    "action_requests": [
        {
            "name": "send_email",
            "args": {"to": "dana@customer.example", "subject": "Refund", "body": "Hi Dana"},
            "description": "Tool execution requires approval",
        }
    ],
    "review_configs": [{"action_name": "send_email", "allowed_decisions": ["approve", "edit", "reject"]}],
}

FORM_SCHEMA = {
    "type": "object",
    "properties": {"region": {"type": "string", "enum": ["eu-west-1", "us-east-1"]}, "replicas": {"type": "integer", "maximum": 5}},
    "required": ["region"],
}


def gemini_call(task_id: str, scenario: str, status: str) -> dict:
    """Gemini CLI's serialized tool call (task.ts toolStatusMessage)."""
    n = uuid.uuid5(uuid.NAMESPACE_DNS, task_id).int % 10**13
    if scenario == "gemini-edit":
        request = {"callId": f"replace__replace_{n}_0", "name": "replace",
                   "args": {"file_path": "/src/app/config.py", "old_string": "DEBUG = True", "new_string": "DEBUG = False"},
                   "isClientInitiated": False, "prompt_id": "session########1"}
        details = {"type": "edit", "title": "Confirm Edit: config.py", "fileName": "config.py", "filePath": "/src/app/config.py",
                   "fileDiff": "--- config.py\tCurrent\n+++ config.py\tProposed\n@@ -1 +1 @@\n-DEBUG = True\n+DEBUG = False\n",
                   "originalContent": "DEBUG = True\n", "newContent": "DEBUG = False\n"}
        tool = {"name": "replace", "displayName": "Edit", "kind": "edit"}
    else:
        request = {"callId": f"run_shell_command__run_shell_command_{n}_0", "name": "run_shell_command",
                   "args": {"command": "git push origin main", "description": "Push the fix to origin"},
                   "isClientInitiated": False, "prompt_id": "session########1"}
        details = {"type": "exec", "title": "Confirm Shell Command", "command": "git push origin main",
                   "rootCommand": "git", "rootCommands": ["git"]}
        tool = {"name": "run_shell_command", "displayName": "Shell", "kind": "execute"}
    call = {"request": request, "status": status, "tool": tool}
    if status == "awaiting_approval":
        call["confirmationDetails"] = details
    return call


def coder_agent(kind: str) -> dict:
    return {"coderAgent": {"kind": kind}, "model": "gemini-2.5-pro"}


class Scripted(AgentExecutor):
    async def execute(self, context, event_queue):
        task = context.current_task
        up = TaskUpdater(event_queue, context.task_id, context.context_id)
        if task is None:
            await event_queue.enqueue_event(new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED,
                                                     history=[context.message]))
            words = context.get_user_input().split()
            scenario = words[0] if words else "text"
            scenario_of[context.task_id] = scenario
            await self.ask(up, context.task_id, scenario)
            return
        # Which question this message answers: the first, or the second of
        # "again".
        question = (context.task_id, context.task_id in asked_again)
        if question in answered:
            ignored.setdefault(context.task_id, []).append(MessageToDict(context.message))
            return
        answered.add(question)
        received.setdefault(context.task_id, []).append(MessageToDict(context.message))
        scenario = scenario_of.get(context.task_id, "text")
        if scenario == "again" and context.task_id not in asked_again:
            asked_again.add(context.task_id)
            await up.requires_input(up.new_agent_message([new_text_part("And which day should it ship?")]))
            return
        await up.complete(up.new_agent_message([new_text_part("Done: " + json.dumps(MessageToDict(context.message).get("parts", [])))]))

    async def ask(self, up, task_id, scenario):
        if scenario == "strands":
            parts = [
                new_text_part("Agent requires input:\n- myapp-approval: send_email"),
                new_data_part({"interrupts": [{"interruptId": strands_id(task_id), "name": "myapp-approval", "reason": TOOL_USE}]}),
            ]
            await up.requires_input(up.new_agent_message(parts))
        elif scenario == "paths":
            parts = [
                new_text_part("Agent requires input:\n- myapp-approval: delete files"),
                new_data_part({"interrupts": [{"interruptId": strands_id(task_id), "name": "myapp-approval",
                                               "reason": {"paths": ["/tmp/build", "/tmp/cache"]}}]}),
            ]
            await up.requires_input(up.new_agent_message(parts))
        elif scenario in ("langgraph", "form"):
            data = {"id": interrupt_id(task_id), "value": MIDDLEWARE}
            if scenario == "form":
                data = {"id": interrupt_id(task_id), "value": "Where should the replica go?", "response_schema": FORM_SCHEMA}
            await up.add_artifact([new_data_part(data)], name="Interrupt")
            await up.requires_input()
        elif scenario in ("gemini", "gemini-edit"):
            working = TaskState.TASK_STATE_WORKING
            await up.update_status(working, up.new_agent_message([new_data_part(gemini_call(task_id, scenario, "scheduled"))]),
                                   metadata=coder_agent("tool-call-update"))
            await up.update_status(working, up.new_agent_message([new_data_part(gemini_call(task_id, scenario, "awaiting_approval"))]),
                                   metadata=coder_agent("tool-call-confirmation"))
            await up.update_status(TaskState.TASK_STATE_INPUT_REQUIRED, metadata=coder_agent("state-change"))
        elif scenario == "unknown":
            await up.requires_input(up.new_agent_message([new_data_part({"kind_of_thing": "mystery", "n": [1, 2]})]))
        else:
            await up.requires_input(up.new_agent_message([new_text_part("Which region should the replica go to?")]))

    async def cancel(self, context, event_queue):
        up = TaskUpdater(event_queue, context.task_id, context.context_id)
        await up.cancel()


def app(port: int) -> Starlette:
    url = f"http://127.0.0.1:{port}/"
    card = AgentCard(
        name="hitl scripted agent",
        description="Waits in input-required with scripted questions (hitl's tests).",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0"),
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3"),
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[AgentSkill(id="ask", name="ask", description="asks a human", tags=["hitl"])],
    )
    handler = DefaultRequestHandlerV2(agent_executor=Scripted(), task_store=InMemoryTaskStore(), agent_card=card)

    async def got(request):
        return JSONResponse(received.get(request.path_params["task_id"], []))

    async def dropped(request):
        return JSONResponse(ignored.get(request.path_params["task_id"], []))

    routes = [Route("/received/{task_id}", got, methods=["GET"]), Route("/ignored/{task_id}", dropped, methods=["GET"])]
    routes += create_agent_card_routes(card)
    routes += create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True)
    return Starlette(routes=routes)


if __name__ == "__main__":
    port = int(sys.argv[1])
    uvicorn.run(app(port), host="127.0.0.1", port=port, log_level="warning")
