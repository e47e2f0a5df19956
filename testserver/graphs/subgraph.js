// A subgraph that interrupts, as python/graphs/subgraph.py: the parent's
// node "delegate" is a compiled graph whose node "approve" asks, so the
// interrupt comes from a nested namespace. The subgraph logs the answer,
// which reaches the parent's state.
import { StateGraph, START, END, interrupt } from "@langchain/langgraph";
import { State } from "./common.js";

const approve = async (state) => {
  const value = interrupt({ question: `Deploy ${state.topic || "the release"}?`, step: "inner" });
  return { log: [{ node: "approve", value }] };
};

const inner = new StateGraph(State).addNode("approve", approve).addEdge(START, "approve").addEdge("approve", END).compile();

export const graph = new StateGraph(State)
  .addNode("prepare", async () => ({ log: [{ node: "prepare" }] }))
  .addNode("delegate", inner)
  .addEdge(START, "prepare")
  .addEdge("prepare", "delegate")
  .addEdge("delegate", END)
  .compile();
