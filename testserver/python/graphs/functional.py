"""The functional API, as ../../graphs/functional.js: an entrypoint whose
tasks interrupt one after another (a title, then whether to publish).
Answering the first task's interrupt completes that task and the next one
interrupts, within one checkpoint. It returns {log}, what each task got."""

from typing import Any

from langgraph.func import entrypoint, task
from langgraph.types import interrupt


@task
def title(topic: str) -> Any:
    return interrupt(f"Title for the post about {topic}?")


@task
def publish(name: str) -> Any:
    return interrupt(f'Publish "{name}" now? (yes/no)')


@entrypoint()
def graph(inputs: dict) -> dict:
    topic = (inputs or {}).get("topic") or "release notes"
    name = title(topic).result()
    go = publish(name).result()
    return {"log": [{"task": "title", "reply": name}, {"task": "publish", "reply": go}]}
