// Deep-agent style: the agent's `task` tool runs a sub-agent (its own
// createAgent with the HITL middleware) inside the tool call. The sub-agent
// pauses inside the tool; the interrupt surfaces on the parent's thread and
// its answer is routed back into the sub-agent. The parent's tool message
// carries the sub-agent's last words, with what its tool ran with.
import { createAgent, humanInTheLoopMiddleware, tool } from "langchain";
import { z } from "zod";
import { ScriptedModel } from "./scripted.js";

const sendEmail = tool(async (args) => `ran send_email ${JSON.stringify(args)}`, {
  name: "send_email",
  description: "Send an email",
  schema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
});

const worker = createAgent({
  model: new ScriptedModel({
    email: [{ name: "send_email", args: { to: "customer@example.com", subject: "Your refund", body: "It is on its way." } }],
  }),
  tools: [sendEmail],
  middleware: [humanInTheLoopMiddleware({ interruptOn: { send_email: { allowedDecisions: ["approve", "edit", "reject"] } } })],
});

const taskTool = tool(
  async ({ description }, config) => {
    const out = await worker.invoke({ messages: [{ role: "user", content: description }] }, config);
    const last = out.messages[out.messages.length - 1];
    return String(last.content);
  },
  { name: "task", description: "Hand a task to a sub-agent", schema: z.object({ description: z.string() }) },
);

export const graph = createAgent({
  model: new ScriptedModel({ email: [{ name: "task", args: { description: "email the customer about the refund" } }] }),
  tools: [taskTool],
});
