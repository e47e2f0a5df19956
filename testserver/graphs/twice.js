// One node that calls interrupt() twice: a yes/no question, then (on "yes")
// the details. Answering the first runs the node again: the first
// interrupt() returns the answer and the second raises a new interrupt of
// the same task, with an id of its own, and the run writes no checkpoint.
// Topic "slow": the node works 3 s after the first answer (a run a server
// restart can lose).
import { StateGraph, START, END, interrupt } from "@langchain/langgraph";
import { State } from "./common.js";

const ask = async (state) => {
  const go = interrupt("Deploy the release to production? (yes/no)");
  if (state.topic === "slow") await new Promise((resolve) => setTimeout(resolve, 3000));
  const entry = { node: "ask", go };
  if (String(go).trim().toLowerCase().startsWith("yes")) {
    entry.details = interrupt("Which regions, and when?");
  }
  return { log: [entry] };
};

export const graph = new StateGraph(State).addNode("ask", ask).addEdge(START, "ask").addEdge("ask", END).compile();
