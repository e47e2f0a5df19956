// A run that takes a while, to observe a busy thread (422 on a second run).
import { StateGraph, START, END } from "@langchain/langgraph";
import { State } from "./common.js";

export const graph = new StateGraph(State)
  .addNode("wait", async () => {
    await new Promise((resolve) => setTimeout(resolve, 2500));
    return { log: [{ node: "wait" }] };
  })
  .addEdge(START, "wait")
  .addEdge("wait", END)
  .compile();
