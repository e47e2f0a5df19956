// Two tools that each call interrupt(), called in one ToolNode step: one
// task raising two interrupts. The JavaScript ToolNode runs the calls with
// Promise.all, so the server shows the first; once it is answered the
// second is raised (with an id of its own) within the same task.
import { StateGraph, MessagesAnnotation, START, END, interrupt } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { tool } from "@langchain/core/tools";
import { AIMessage } from "@langchain/core/messages";
import { z } from "zod";

const asking = (name, question) =>
  tool(async (args) => `${name} got ${JSON.stringify(interrupt(question(args)))}`, {
    name,
    description: name,
    schema: z.object({ target: z.string() }),
  });

const tools = [
  asking("confirm_restart", (a) => `Restart ${a.target} now? (yes/no)`),
  asking("pick_window", (a) => `Which maintenance window for ${a.target}?`),
];

const agent = async () => ({
  messages: [
    new AIMessage({
      content: "",
      tool_calls: [
        { name: "confirm_restart", args: { target: "db-1" }, id: "call_restart", type: "tool_call" },
        { name: "pick_window", args: { target: "db-1" }, id: "call_window", type: "tool_call" },
      ],
    }),
  ],
});

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", agent)
  .addNode("tools", new ToolNode(tools))
  .addEdge(START, "agent")
  .addEdge("agent", "tools")
  .addEdge("tools", END)
  .compile();
