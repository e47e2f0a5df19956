// Agent Inbox HumanInterrupt (langgraph.prebuilt.interrupt): a list of one
// request, answered with a list of HumanResponse. topic "single" sends the
// request as a bare object instead of a list.
import { StateGraph, START, END, interrupt } from "@langchain/langgraph";
import { State } from "./common.js";

const review = async (state) => {
  const request = {
    action_request: { action: "post_tweet", args: { text: "We shipped v2.0 today! Thanks to everyone who helped." } },
    config: { allow_ignore: true, allow_respond: true, allow_edit: true, allow_accept: true },
    description: "## Post a tweet\n\nThe agent wants to post this on the **company** account.",
  };
  const response = interrupt(state.topic === "single" ? request : [request]);
  return { log: [{ node: "review", response }] };
};

export const graph = new StateGraph(State).addNode("review", review).addEdge(START, "review").addEdge("review", END).compile();
