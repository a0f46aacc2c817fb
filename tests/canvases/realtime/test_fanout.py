"""Change frames are filtered and encoded once per role level per process (realtime/fanout.py)."""

from __future__ import annotations

import json

from canvasweb.canvases import permissions
from canvasweb.canvases.realtime.fanout import (
    MAX_EVENTS_PER_FRAME,
    change_frame,
    changes_frames,
    encode_frame,
)
from canvasweb.canvases.visibility import filter_event


def _event(revision: int, content: str) -> dict:
    public, secret = permissions.role_level("viewer"), permissions.role_level("owner")
    return {
        "type": "change",
        "revision": revision,
        "client_op_id": f"op-{revision}",
        "actor": {"kind": "user", "user": {"id": 1, "username": "林"}},
        "at": "2026-12-02T02:00:00Z",
        "changes": [
            {
                "entity": "node",
                "action": "created",
                "id": "a",
                "fields": [],
                "data": {"content": content},
                "_vb": None,
                "_va": public,
            },
            {
                "entity": "node",
                "action": "created",
                "id": "b",
                "fields": [],
                "data": {"content": "只给主人"},
                "_vb": None,
                "_va": secret,
            },
        ],
    }


def test_a_frame_is_what_the_socket_would_have_encoded_itself():
    event = _event(3, "共享的 fact")
    for role in ("viewer", "editor", "owner"):
        level = permissions.role_level(role)
        text, resync = change_frame(event, level=level, key=("batch-same-bytes", 0))
        assert resync is False
        assert text == encode_frame(filter_event(event, level=level)[0])


def test_each_level_gets_its_own_frame_and_reuses_it():
    event = _event(4, "第二条")
    viewer, owner = permissions.role_level("viewer"), permissions.role_level("owner")
    seen_by_viewer, _ = change_frame(event, level=viewer, key=("batch-levels", 0))
    seen_by_owner, _ = change_frame(event, level=owner, key=("batch-levels", 0))
    assert [c["id"] for c in json.loads(seen_by_viewer)["changes"]] == ["a"]
    assert [c["id"] for c in json.loads(seen_by_owner)["changes"]] == ["a", "b"]
    # A second socket of the same level gets the very same text, not a new encoding.
    assert change_frame(event, level=viewer, key=("batch-levels", 0))[0] is seen_by_viewer
    assert "_va" not in seen_by_owner and "只给主人" in seen_by_owner  # CJK kept as text, keys stripped


def test_events_of_one_batch_and_of_other_batches_do_not_share_a_frame():
    first, second = _event(5, "甲"), _event(6, "乙")
    level = permissions.role_level("editor")
    a = change_frame(first, level=level, key=("batch-x", 0))[0]
    b = change_frame(second, level=level, key=("batch-x", 1))[0]
    c = change_frame(second, level=level, key=("batch-y", 0))[0]
    assert (
        json.loads(a)["revision"] == 5 and json.loads(b)["revision"] == 6 and json.loads(c)["revision"] == 6
    )


def test_without_a_batch_id_nothing_is_cached():
    level = permissions.role_level("editor")
    one = change_frame(_event(7, "丙"), level=level, key=None)[0]
    other = change_frame(_event(7, "丁"), level=level, key=None)[0]
    assert "丙" in one and "丁" in other


def test_a_commit_of_several_revisions_is_one_changes_frame_like_a_catch_up_answer():
    events = [_event(r, f"第{r}条") for r in (11, 12, 13)]
    level = permissions.role_level("viewer")
    frames, resync = changes_frames(events, level=level, batch="batch-many", start=0)
    assert resync is False and len(frames) == 1
    frame = json.loads(frames[0])
    assert frame == {
        "type": "changes",
        "from": 10,
        "to": 13,
        "events": [filter_event(e, level=level)[0] for e in events],
    }
    # Only the revisions a socket has not sent yet; the same text for the next socket of the level.
    later, _ = changes_frames(events, level=level, batch="batch-many", start=1)
    assert json.loads(later[0])["from"] == 11 and [e["revision"] for e in json.loads(later[0])["events"]] == [
        12,
        13,
    ]
    assert changes_frames(events, level=level, batch="batch-many", start=1)[0] is later


def test_a_big_commit_is_split_into_frames_of_consecutive_revisions():
    events = [_event(100 + i, "大") for i in range(MAX_EVENTS_PER_FRAME + 5)]
    frames, _ = changes_frames(events, level=permissions.role_level("owner"), batch="batch-big", start=0)
    decoded = [json.loads(f) for f in frames]
    assert [len(f["events"]) for f in decoded] == [MAX_EVENTS_PER_FRAME, 5]
    assert decoded[0]["to"] == decoded[1]["from"] and decoded[1]["to"] == 100 + MAX_EVENTS_PER_FRAME + 4
