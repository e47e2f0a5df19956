import { Annotation } from "@langchain/langgraph";

// State shared by the hand-written graphs: `log` records, in order, every
// resume value a node received, so a test can assert what reached the graph.
export const State = Annotation.Root({
  topic: Annotation({ reducer: (_, b) => b, default: () => "" }),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
