// Natural-language prompts of seed 002: a plain string, or an object carrying
// hitl_prompt / hitl_context / hitl_phase. The reply is free text.
import { StateGraph, START, END, interrupt } from "@langchain/langgraph";
import { State } from "./common.js";

const ask = async (state) => {
  const value =
    state.topic === "object"
      ? {
          hitl_phase: "awaiting_response",
          hitl_prompt: "I found two addresses for ACME. Which one should I use?",
          hitl_context: { source_tool: "lookup_customer", args: { name: "ACME" } },
        }
      : "Customer not found. What is the customer's email address?";
  const reply = interrupt(value);
  return { log: [{ node: "ask", reply }] };
};

export const graph = new StateGraph(State).addNode("ask", ask).addEdge(START, "ask").addEdge("ask", END).compile();
