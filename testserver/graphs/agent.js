// A real LangChain agent with the real humanInTheLoopMiddleware. Only the chat
// model is scripted: it reads the scenario from the first human message, so
// every thread behaves the same whatever else runs on the server.
import { createAgent, humanInTheLoopMiddleware, tool } from "langchain";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";
import { z } from "zod";

// Each tool reports the exact arguments it ran with, so a test can read from
// the thread's messages what reached the graph after a decision.
const ran = (name) => async (args) => `ran ${name} ${JSON.stringify(args)}`;

const sendEmail = tool(ran("send_email"), {
  name: "send_email",
  description: "Send an email",
  schema: z.object({
    to: z.string(),
    subject: z.string(),
    body: z.string(),
    cc: z.array(z.string()).optional(),
  }),
});
const issueRefund = tool(ran("issue_refund"), {
  name: "issue_refund",
  description: "Refund an order",
  schema: z.object({ order_id: z.string(), amount: z.number(), currency: z.string() }),
});
const deleteRecords = tool(ran("delete_records"), {
  name: "delete_records",
  description: "Delete rows from a table",
  schema: z.object({ table: z.string(), where: z.string() }),
});
const notify = tool(ran("notify"), {
  name: "notify",
  description: "Post a message to a channel",
  schema: z.object({ channel: z.string(), text: z.string() }),
});

// Configured `true` (every decision the middleware has: approve, edit,
// reject; the Python middleware's True adds respond).
const lookupOrder = tool(ran("lookup_order"), {
  name: "lookup_order",
  description: "Look an order up",
  schema: z.object({ order_id: z.string() }),
});

const scenarios = {
  email: [
    {
      name: "send_email",
      args: {
        to: "customer@example.com",
        subject: "Your refund",
        body: "Hello,\n\nYour refund of $12.50 is on its way.\n",
        cc: ["support@example.com"],
      },
    },
  ],
  refund: [{ name: "issue_refund", args: { order_id: "A-1001", amount: 12.5, currency: "EUR" } }],
  ops: [
    { name: "delete_records", args: { table: "sessions", where: "last_seen < now() - interval '90 days'" } },
    { name: "notify", args: { channel: "#ops", text: "Pruned stale sessions" } },
  ],
  lookup: [{ name: "lookup_order", args: { order_id: "A-1001" } }],
};

class ScriptedModel extends BaseChatModel {
  _llmType() {
    return "scripted";
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    const first = messages.find((m) => m.getType() === "human");
    const scenario = String(first?.content ?? "").trim().split(/\s+/)[0];
    const last = messages[messages.length - 1];
    let message;
    if (last.getType() === "tool") {
      const results = messages
        .filter((m) => m.getType() === "tool")
        .map((m) => `${m.name}: ${m.content}`);
      message = new AIMessage({ content: `done\n${results.join("\n")}` });
    } else {
      const calls = (scenarios[scenario] ?? []).map((c, i) => ({
        ...c,
        id: `call_${scenario}_${i}`,
        type: "tool_call",
      }));
      message = new AIMessage({ content: calls.length ? "" : `unknown scenario ${scenario}`, tool_calls: calls });
    }
    return { generations: [{ text: String(message.content), message }] };
  }
}

export const graph = createAgent({
  model: new ScriptedModel({}),
  tools: [sendEmail, issueRefund, deleteRecords, notify, lookupOrder],
  middleware: [
    humanInTheLoopMiddleware({
      interruptOn: {
        send_email: { allowedDecisions: ["approve", "edit", "reject"] },
        issue_refund: {
          allowedDecisions: ["approve", "edit", "reject"],
          argsSchema: {
            type: "object",
            properties: { order_id: { type: "string" }, amount: { type: "number", maximum: 100 }, currency: { type: "string" } },
            required: ["order_id", "amount", "currency"],
          },
        },
        delete_records: { allowedDecisions: ["approve", "reject"], description: "**Destructive**: deletes rows." },
        notify: { allowedDecisions: ["approve", "edit", "reject"] },
        lookup_order: true,
      },
      descriptionPrefix: "Tool execution pending approval",
    }),
  ],
});
