"""interrupt(value, response_schema=...) of langgraph >= 1.2.12, as ../graphs/form.js.

topic "zod" gives a Pydantic model (the counterpart of the JS graph's Zod
schema), which LangGraph also checks the answer against (a mismatch fails the
run); topic "nested" a JSON Schema with an object, an array and long text;
anything else the same questions as a plain JSON Schema dict.
"""

from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from pydantic import BaseModel, Field

from common import State

JSON_SCHEMA = {
    "type": "object",
    "properties": {
        "framework": {"type": "string", "enum": ["react", "vue", "svelte"], "description": "The UI framework to build with"},
        "tests": {"type": "boolean", "description": "Write tests as well"},
        "budget": {"type": "number", "minimum": 0, "maximum": 100, "description": "Hours the work may take"},
        "notes": {"type": "string", "maxLength": 2000, "description": "Anything the agent should know"},
    },
    "required": ["framework", "tests", "budget"],
    "additionalProperties": False,
}


class Choice(BaseModel):
    framework: Literal["react", "vue", "svelte"] = Field(description="The UI framework to build with")
    tests: bool = Field(description="Write tests as well")
    budget: float = Field(ge=0, le=100, description="Hours the work may take")
    notes: str | None = Field(default=None, max_length=2000, description="Anything the agent should know")


NESTED_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 3},
        "owner": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}},
            "required": ["name"],
        },
        "labels": {"type": "array", "items": {"type": "string"}},
        "priority": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
    },
    "required": ["title", "owner"],
}


def ask(state: State) -> dict:
    topic = state.get("topic", "")
    schema = Choice if topic == "zod" else NESTED_SCHEMA if topic == "nested" else JSON_SCHEMA
    question = "File the ticket" if topic == "nested" else "Pick a framework"
    answer = interrupt({"question": question}, response_schema=schema)
    if isinstance(answer, BaseModel):
        answer = answer.model_dump(exclude_none=True)
    return {"log": [{"node": "ask", "answer": answer}]}


graph = StateGraph(State).add_node("ask", ask).add_edge(START, "ask").add_edge("ask", END).compile()
