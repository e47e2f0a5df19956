"""State shared by the hand-written graphs, as in ../graphs/common.js.

`log` records, in order, every resume value a node received, so a test can
assert what reached the graph.
"""

import operator
from typing import Annotated, Any

from typing_extensions import TypedDict


def _last(_: str, b: str) -> str:
    return b


class State(TypedDict, total=False):
    topic: Annotated[str, _last]
    log: Annotated[list[Any], operator.add]
