// Two branches that interrupt at once in one thread: one with a payload of no
// known shape (shown raw), one with a plain prompt.
import { StateGraph, START, END, interrupt } from "@langchain/langgraph";
import { State } from "./common.js";

const left = async () => ({ log: [{ node: "left", value: interrupt({ kind: "budget_check", limits: { daily: 100, currency: "USD" }, ratio: 0.1 }) }] });
const right = async () => ({ log: [{ node: "right", value: interrupt("Which region should the replica go to?") }] });

export const graph = new StateGraph(State)
  .addNode("left", left)
  .addNode("right", right)
  .addEdge(START, "left")
  .addEdge(START, "right")
  .addEdge("left", END)
  .addEdge("right", END)
  .compile();
