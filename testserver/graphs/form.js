// interrupt(value, { responseSchema }) of LangGraph JS 1.7: the interrupt
// says what answer it expects, and the server sends that JSON Schema as
// `response_schema` next to the value. topic "zod" gives a Zod schema, which
// the graph also checks the answer against (a mismatch fails the run);
// topic "nested" a schema with an object, an array and long text; anything
// else the same questions as a plain JSON Schema, which nothing checks.
import { StateGraph, START, END, interrupt } from "@langchain/langgraph";
import { z } from "zod";
import { State } from "./common.js";

const jsonSchema = {
  type: "object",
  properties: {
    framework: { type: "string", enum: ["react", "vue", "svelte"], description: "The UI framework to build with" },
    tests: { type: "boolean", description: "Write tests as well" },
    budget: { type: "number", minimum: 0, maximum: 100, description: "Hours the work may take" },
    notes: { type: "string", maxLength: 2000, description: "Anything the agent should know" },
  },
  required: ["framework", "tests", "budget"],
  additionalProperties: false,
};

const zodSchema = z.object({
  framework: z.enum(["react", "vue", "svelte"]).describe("The UI framework to build with"),
  tests: z.boolean().describe("Write tests as well"),
  budget: z.number().min(0).max(100).describe("Hours the work may take"),
  notes: z.string().max(2000).optional().describe("Anything the agent should know"),
});

const nestedSchema = {
  type: "object",
  properties: {
    title: { type: "string", minLength: 3 },
    owner: {
      type: "object",
      properties: { name: { type: "string" }, email: { type: "string", format: "email" } },
      required: ["name"],
    },
    labels: { type: "array", items: { type: "string" } },
    priority: { type: "integer", minimum: 1, maximum: 5, default: 3 },
  },
  required: ["title", "owner"],
};

const ask = async (state) => {
  const schema = state.topic === "zod" ? zodSchema : state.topic === "nested" ? nestedSchema : jsonSchema;
  const question = state.topic === "nested" ? "File the ticket" : "Pick a framework";
  const answer = interrupt({ question }, { responseSchema: schema });
  return { log: [{ node: "ask", answer }] };
};

export const graph = new StateGraph(State).addNode("ask", ask).addEdge(START, "ask").addEdge("ask", END).compile();
