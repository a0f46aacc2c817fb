"""Each committed change is filtered and JSON-encoded once per role level per process, not per socket.

A group commit reaches every socket of the canvas in this process as one channel-layer message
(realtime/committer.py), which the committer stamps with a `batch` id unique to that commit. The
first socket of a role level to handle an event filters and encodes it; the others of that level
reuse the text. The frames are byte for byte what each socket would have encoded itself.

A commit of several revisions goes to each socket as one `changes` frame (docs/protocol.md) whose
events are those same `change` texts, joined once per level and starting revision.

What every socket asks of a commit before sending it (are its revisions consecutive, does it change
anyone's membership or delete the canvas) is also answered once per commit (`batch_facts`), not by
each socket walking every change of every event.
"""

from __future__ import annotations

import itertools
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from canvasweb.canvases.visibility import filter_event

# Entries are (text | None, needs_resync); a few hundred batches in flight at most per process.
_MAX_ENTRIES = 4096
_CACHE: OrderedDict[tuple[str, int, int], tuple[str | None, bool]] = OrderedDict()
_BATCH_CACHE: OrderedDict[tuple[str, int, int], tuple[tuple[str, ...], bool]] = OrderedDict()
_FACTS: OrderedDict[tuple[str, int], BatchFacts] = OrderedDict()

# A `changes` frame carries at most this many revisions, so one big commit does not make one huge
# frame for a client to parse in one go.
MAX_EVENTS_PER_FRAME = 64


@dataclass(frozen=True)
class BatchFacts:
    """What a run of change events means for any receiver, whatever its role."""

    consecutive: bool  # each revision follows the one before
    members: frozenset[str]  # user ids whose membership one of the events changed
    canvas_deleted: bool

    def concerns(self, user_id: str) -> bool:
        """Whether the events change this user's membership or delete the canvas."""
        return self.canvas_deleted or user_id in self.members


def facts_of(events: list[dict[str, Any]]) -> BatchFacts:
    members: set[str] = set()
    deleted = False
    for event in events:
        for change in event["changes"]:
            if change["entity"] == "member":
                members.add(change["id"])
            elif change["entity"] == "canvas" and change["action"] == "deleted":
                deleted = True
    consecutive = all(b["revision"] == a["revision"] + 1 for a, b in itertools.pairwise(events))
    return BatchFacts(consecutive=consecutive, members=frozenset(members), canvas_deleted=deleted)


def batch_facts(events: list[dict[str, Any]], *, key: tuple[str, int] | None) -> BatchFacts:
    """`facts_of(events)`, once per commit: `key` is (batch id, -1) for all its events, (batch id,
    index) for one of them; None: not cached."""
    if key is None:
        return facts_of(events)
    hit = _FACTS.get(key)
    if hit is None:
        hit = facts_of(events)
        _remember(_FACTS, key, hit)
    return hit


def encode_frame(content: Any) -> str:
    return json.dumps(content, ensure_ascii=False, allow_nan=False)


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    cache[key] = value
    if len(cache) > _MAX_ENTRIES:
        cache.popitem(last=False)


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
        _remember(_CACHE, cache_key, answer)
    return answer


def changes_frames(
    events: list[dict[str, Any]], *, level: int, batch: str, start: int
) -> tuple[tuple[str, ...], bool]:
    """(the `changes` frames carrying events[start:] of one commit for a receiver at `level`; whether
    it must resync instead, then no frames). The events are consecutive revisions."""
    cache_key = (batch, start, level)
    hit = _BATCH_CACHE.get(cache_key)
    if hit is not None:
        return hit
    texts: list[str] = []
    for index in range(start, len(events)):
        text, needs_resync = change_frame(events[index], level=level, key=(batch, index))
        if needs_resync or text is None:
            _remember(_BATCH_CACHE, cache_key, ((), True))
            return (), True
        texts.append(text)
    frames = []
    for first in range(0, len(texts), MAX_EVENTS_PER_FRAME):
        chunk = events[start + first : start + first + MAX_EVENTS_PER_FRAME]
        head = encode_frame(
            {"type": "changes", "from": chunk[0]["revision"] - 1, "to": chunk[-1]["revision"]}
        )
        # The events are the `change` texts already encoded for this level: spliced in, not re-encoded.
        body = ", ".join(texts[first : first + MAX_EVENTS_PER_FRAME])
        frames.append(f'{head[:-1]}, "events": [{body}]}}')
    answer = (tuple(frames), False)
    _remember(_BATCH_CACHE, cache_key, answer)
    return answer
