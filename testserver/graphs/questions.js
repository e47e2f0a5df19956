// The structured-decision node of seed 000: approve ends, edit loops back to
// the agent (which asks again), reject ends with the reason.
import { StateGraph, START, END, interrupt, Command } from "@langchain/langgraph";
import { State } from "./common.js";

const base = async (state) => ({ log: [{ node: "base", round: state.log.filter((e) => e.node === "base").length + 1 }] });

const humanFeedback = async (state) => {
  const response = interrupt({
    questions: ["What framework do you prefer?", "Should I include tests?"],
    allowed_decisions: ["approve", "edit", "reject"],
    prompt: "The agent needs your input on the following:",
    context: { message_count: state.log.length, topic: state.topic },
  });
  const entry = { node: "human_feedback", response };
  if (response.decision === "edit") return new Command({ goto: "base", update: { log: [entry] } });
  return new Command({ goto: END, update: { log: [entry] } });
};

export const graph = new StateGraph(State)
  .addNode("base", base)
  .addNode("human_feedback", humanFeedback, { ends: ["base", END] })
  .addEdge(START, "base")
  .addEdge("base", "human_feedback")
  .compile();
