"""Each committed change is filtered and JSON-encoded once per role level per process, not per socket.

A group commit reaches every socket of the canvas in this process as one channel-layer message
(realtime/committer.py), which the committer stamps with a `batch` id unique to that commit. The
first socket of a role level to handle an event filters and encodes it; the others of that level
reuse the text. The frames are byte for byte what each socket would have encoded itself.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from canvasweb.canvases.visibility import filter_event

# Entries are (text | None, needs_resync); a few hundred batches in flight at most per process.
_MAX_ENTRIES = 4096
_CACHE: OrderedDict[tuple[str, int, int], tuple[str | None, bool]] = OrderedDict()


def encode_frame(content: Any) -> str:
    return json.dumps(content, ensure_ascii=False, allow_nan=False)


def change_frame(
    event: dict[str, Any], *, level: int, key: tuple[str, int] | None
) -> tuple[str | None, bool]:
    """(the `change` frame's text for a receiver at `level`, or None when it must resync instead;
    whether it must resync). `key` is (batch id, index in the batch); None: not cached."""
    cache_key = (key[0], key[1], level) if key is not None else None
    if cache_key is not None:
        hit = _CACHE.get(cache_key)
        if hit is not None:
            return hit
    filtered, needs_resync = filter_event(event, level=level)
    answer = (None if needs_resync else encode_frame(filtered), needs_resync)
    if cache_key is not None:
        _CACHE[cache_key] = answer
        if len(_CACHE) > _MAX_ENTRIES:
            _CACHE.popitem(last=False)
    return answer
