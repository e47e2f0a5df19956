// The functional API: an entrypoint whose tasks interrupt one after another
// (a title, then whether to publish). Answering the first task's interrupt
// completes that task and the next one interrupts, within one checkpoint.
// The entrypoint returns {log}, the resume values each task received.
import { entrypoint, task, interrupt } from "@langchain/langgraph";

const title = task("title", async (topic) => interrupt(`Title for the post about ${topic}?`));
const publish = task("publish", async (name) => interrupt(`Publish "${name}" now? (yes/no)`));

export const graph = entrypoint("functional", async (input) => {
  const topic = input?.topic ?? "release notes";
  const name = await title(topic);
  const go = await publish(name);
  return { log: [{ task: "title", reply: name }, { task: "publish", reply: go }] };
});
