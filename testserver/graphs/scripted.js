// A chat model that plays a script: with no tool result yet, it calls the
// tools the script names for the first human message's first word; after a
// tool result, it answers "done" with every tool result. No network, no key.
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage } from "@langchain/core/messages";

export class ScriptedModel extends BaseChatModel {
  constructor(script) {
    super({});
    this.script = script;
  }
  _llmType() {
    return "scripted";
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    const first = messages.find((m) => m.getType() === "human");
    const scenario = String(first?.content ?? "").trim().split(/\s+/)[0];
    const last = messages[messages.length - 1];
    let message;
    if (last.getType() === "tool") {
      const results = messages.filter((m) => m.getType() === "tool").map((m) => `${m.name}: ${m.content}`);
      message = new AIMessage({ content: `done\n${results.join("\n")}` });
    } else {
      const calls = (this.script[scenario] ?? []).map((c, i) => ({ ...c, id: `call_${scenario}_${i}`, type: "tool_call" }));
      message = new AIMessage({ content: calls.length ? "" : `unknown scenario ${scenario}`, tool_calls: calls });
    }
    return { generations: [{ text: String(message.content), message }] };
  }
}
