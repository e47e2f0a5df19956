// Runs that fail, as python/graphs/failing.py: the node raises, so the thread
// ends in status "error". With topic "charge" it first asks, then raises after
// its interrupt returned unless the answer is "charge-offline": the answer was
// taken when the run failed.
import { StateGraph, START, END, interrupt } from "@langchain/langgraph";
import { State } from "./common.js";

const explode = async (state) => {
  if (state.topic === "charge") {
    const answer = interrupt("The payment gateway is flaky. Charge order 7 now? (yes, or charge-offline)");
    if (answer !== "charge-offline") {
      throw new Error(`the payment gateway refused the charge; answer was '${answer}'`);
    }
    return { log: [{ node: "explode", reply: answer }] };
  }
  throw new Error(`the warehouse API refused the request (${state.topic || "no topic"})`);
};

export const graph = new StateGraph(State).addNode("explode", explode).addEdge(START, "explode").addEdge("explode", END).compile();
