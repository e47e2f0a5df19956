// LangGraph `Send` fan-out: one branch per item of `topic` (a comma list,
// default three), each of which interrupts. Each branch logs the resume
// value it received, so a test can tell which decision reached which branch.
import { StateGraph, START, END, Send, interrupt } from "@langchain/langgraph";
import { State } from "./common.js";

const items = (topic) => (topic || "alpha,beta,gamma").split(",").map((s) => s.trim()).filter(Boolean);

const branch = async (arg) => {
  const value = interrupt({ question: `Ship ${arg.item}?`, item: arg.item });
  // An answer {"sleep": ms} keeps the branch busy that long: a thread with a
  // run in progress while other branches still wait.
  if (value && typeof value === "object" && value.sleep) await new Promise((r) => setTimeout(r, value.sleep));
  return { log: [{ node: "branch", item: arg.item, value }] };
};

export const graph = new StateGraph(State)
  .addNode("branch", branch)
  .addConditionalEdges(START, (state) => items(state.topic).map((item) => new Send("branch", { item })))
  .addEdge("branch", END)
  .compile();
