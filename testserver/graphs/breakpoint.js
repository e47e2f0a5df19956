// A static breakpoint: the thread stops before "act" with no interrupt value.
import { StateGraph, START, END } from "@langchain/langgraph";
import { State } from "./common.js";

export const graph = new StateGraph(State)
  .addNode("plan", async () => ({ log: [{ node: "plan" }] }))
  .addNode("act", async () => ({ log: [{ node: "act" }] }))
  .addEdge(START, "plan")
  .addEdge("plan", "act")
  .addEdge("act", END)
  .compile({ interruptBefore: ["act"] });
