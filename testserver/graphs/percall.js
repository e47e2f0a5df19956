// The per-call mode of LangChain's human-in-the-loop middleware
// (`interruptMode: "per_call"` in langchain JS 1.5.18, `interrupt_mode="per_call"`
// in Python since langchain-ai/langchain#37579): every gated tool call raises
// an interrupt of its own, {type: "tool_approval", tool call id, name, args,
// description}, with a response schema listing the decisions allowed for
// that tool, and is answered by interrupt id with ONE decision object.
//
// The langchain release this server runs (1.5.14) predates that mode, so
// this graph raises the same wire shape by hand: one branch per tool call
// (as the agent's tool node runs them), each asking with a Zod response
// schema, so an answer in the wrong shape or casing fails the run as it
// would with the real middleware. topic "py" spells it as Python does
// (tool_call_id, edited_action); anything else as JavaScript (toolCallId,
// editedAction). A topic that contains "two" proposes two calls at once.
import { StateGraph, START, END, Send, interrupt } from "@langchain/langgraph";
import { z } from "zod";
import { State } from "./common.js";

const tools = {
  send_email: {
    allowed: ["approve", "edit", "reject", "respond"],
    args: z.object({ to: z.string().email(), subject: z.string(), body: z.string() }),
    call: { to: "customer@example.com", subject: "Your refund", body: "Hello,\n\nYour refund is on its way." },
  },
  delete_records: {
    allowed: ["approve", "reject"],
    args: z.object({ table: z.string(), where: z.string() }),
    call: { table: "sessions", where: "last_seen < now() - interval '90 days'" },
  },
};

// The response schema: one object per allowed decision; an edit is pinned
// to the called tool and its arguments' schema.
const decisionSchema = (name, py) => {
  const t = tools[name];
  const edited = py ? "edited_action" : "editedAction";
  const branches = t.allowed.map((d) => {
    switch (d) {
      case "edit":
        return z.object({ type: z.literal("edit"), [edited]: z.object({ name: z.literal(name), args: t.args }) });
      case "reject":
        return z.object({ type: z.literal("reject"), message: z.string().optional() });
      case "respond":
        return z.object({ type: z.literal("respond"), message: z.string() });
      default:
        return z.object({ type: z.literal("approve") });
    }
  });
  return z.discriminatedUnion("type", branches);
};

const review = async ({ name, id, py }) => {
  const args = tools[name].call;
  const value = py
    ? { type: "tool_approval", tool_call_id: id, name, args }
    : { type: "tool_approval", toolCallId: id, name, args };
  value.description = `Tool execution requires approval\n\nTool: ${name}\nArgs: ${JSON.stringify(args, null, 2)}`;
  const decision = interrupt(value, { responseSchema: decisionSchema(name, py) });
  const edited = decision.editedAction ?? decision.edited_action;
  let outcome;
  switch (decision.type) {
    case "approve":
      outcome = `ran ${name} ${JSON.stringify(args)}`;
      break;
    case "edit":
      outcome = `ran ${edited.name} ${JSON.stringify(edited.args)}`;
      break;
    default:
      outcome = decision.message ?? `User rejected the tool call for \`${name}\` with id ${id}`;
  }
  return { log: [{ node: "review", tool: name, decision, outcome }] };
};

export const graph = new StateGraph(State)
  .addNode("review", review)
  .addConditionalEdges(START, (state) => {
    const py = state.topic.includes("py");
    const names = state.topic.includes("two") ? ["delete_records", "send_email"] : ["send_email"];
    return names.map((name, i) => new Send("review", { name, id: `call_${name}_${i}`, py }));
  })
  .addEdge("review", END)
  .compile();
