"""The value ledger's shortcuts answer exactly what the plain scans answer (own sentences, EN and ZH)."""

from __future__ import annotations

from dataclasses import replace

from helpers_context import node

from canvasweb.context.types import MessageData
from canvasweb.context.value_ledger import _ValueSet, build_ledger
from canvasweb.context.value_mentions import find_mentions
from canvasweb.context.value_mentions.mention import same_value

TEXTS = [
    "The kiln fires at 1240 degrees on Tuesdays.",
    "Release 4.2.1 ships the glaze mixer; build 412 is the nightly.",
    "The mirror listens on 7443; the old port 7442 is gone.",
    "Humidity in the drying room stays at 62% and 62 readings a day are logged.",
    "陶窑的温度是 1240 度，每周二点火。",
    "釉料搅拌机在 4.2 版本里，端口 7443。",
    "Orders: 12 pages printed, 12 sites visited, 3.5 kg of clay.",
    "The repair cost 7443 dollars and the lease runs 30 days.",
    "A 30s grace timer guards the v4.2 rollout on port 8080.",
    "No numbers in this one at all.",
]


def test_value_set_membership_is_same_value_against_any_member():
    said = [find_mentions(text) for text in TEXTS]
    assert len({m.type for ms in said for m in ms}) >= 4  # numbers, versions, ports, money, durations…
    for left_out in range(len(TEXTS)):  # each text's mentions against every other text's
        members = [m for j, ms in enumerate(said) if j != left_out for m in ms]
        values = _ValueSet()
        values.update(members)
        for m in said[left_out]:
            assert (m in values) == any(same_value(m, x) for x in members), (m.raw, m.type)


def test_no_stated_value_in_the_history_means_nothing_retired_whatever_the_canvas_says():
    canvas = [
        node("kiln-old", "The kiln fires at 1180 degrees.", superseded_by="kiln-new"),
        node("kiln-new", "The kiln fires at 1240 degrees."),
        node("port", "The glaze service listens on 7442.", archived=True),
    ]
    quiet = (
        MessageData(id="q1", role="user", content="How is the kiln doing?"),
        MessageData(id="q2", role="assistant", content="It is firing as planned."),
    )
    assert not build_ledger(messages=quiet, nodes=canvas)
    assert not build_ledger(messages=(), nodes=canvas)
    # …while a message that states the old value is still rewritten (the shortcut is not a switch-off).
    stated = (*quiet, MessageData(id="q3", role="user", content="So the kiln fires at 1180 degrees?"))
    ledger = build_ledger(messages=stated, nodes=canvas)
    assert ledger and 2 in ledger.by_position


def test_archived_values_still_live_elsewhere_are_not_retired():
    canvas = [
        node("old-port", "The glaze service listens on 7442.", archived=True),
        node("other", "The kiln monitor listens on 7442 too."),
    ]
    history = (MessageData(id="p1", role="user", content="The glaze service listens on 7442, right?"),)
    assert not build_ledger(messages=history, nodes=canvas)
    alone = [replace(canvas[0]), node("other", "The kiln monitor listens on 9000.")]
    assert build_ledger(messages=history, nodes=alone)


def _kiln_prompt(index, history) -> str:
    from helpers_context import all_text

    from canvasweb.context.compiler import compile_context
    from canvasweb.context.types import CompileRequest, Viewport

    compiled = compile_context(
        request=CompileRequest(
            system_prompt="rules",
            question="what temperature does the kiln fire at?",
            messages=history,
            index=index,
            viewport=Viewport(x=0, y=0),
            role="editor",
            budget=3000,
        )
    )
    return all_text(compiled.messages)


def test_the_ledger_kept_on_the_index_follows_a_supersede_and_survives_a_move():
    from canvasweb.context.index_update import IndexUpdate
    from canvasweb.context.selection import CanvasIndex

    kiln = node("kiln", "The kiln fires at 1180 degrees.")
    shelf = node("shelf", "Drying shelves hold 40 pots.", x=300)
    history = (
        MessageData(id="k1", role="user", content="Remember: the kiln fires at 1180 degrees."),
        MessageData(id="k2", role="assistant", content="Noted."),
    )
    index = CanvasIndex.build(nodes=[kiln, shelf])
    assert "1180" in _kiln_prompt(index, history)
    held = index.derived("value-ledger", list)

    update = IndexUpdate(index)
    update.upsert_node(replace(shelf, x=900, version=2))  # a move: the kept ledger still holds
    moved = update.finish()
    assert moved.derived("value-ledger", list) is held

    update = IndexUpdate(moved)
    update.upsert_node(node("kiln-new", "The kiln fires at 1240 degrees."))
    update.upsert_node(replace(kiln, superseded_by="kiln-new", version=2))
    superseded = update.finish()
    assert superseded.derived("value-ledger", list) is not held
    assert "1180" not in _kiln_prompt(superseded, history)
    ((_, ledger),) = superseded.derived("value-ledger", list)
    assert 0 in ledger.by_position  # the kept ledger is the new canvas's: it retires 1180
    assert "1180" in _kiln_prompt(moved, history)  # the fork left the older index's ledger alone
    ((_, older),) = moved.derived("value-ledger", list)
    assert not older


def test_canvas_changes_that_share_nothing_with_the_chat_are_left_out_without_changing_the_result():
    from canvasweb.context.value_ledger import _reaching_the_conversation
    from canvasweb.context.value_ledger.events import _canvas_events, _mentions

    canvas = [
        node("kiln-old", "The kiln fires at 1180 degrees.", superseded_by="kiln-new"),
        node("kiln-new", "The kiln fires at 1240 degrees."),
        node("press-old", "The clay press takes 12 bar.", superseded_by="press-new"),
        node("press-new", "The clay press takes 14 bar."),
        node("van", "The delivery van seats 3.", archived=True),
    ]
    history = (MessageData(id="h1", role="user", content="The kiln fires at 1180 degrees, right?"),)
    events = _canvas_events(canvas)
    message_events = [
        type(events[0])(
            time=None,
            order=0,
            role="user",
            position=0,
            mentions=_mentions(history[0], None),
            cue_sentences=frozenset(),
        )
    ]
    kept = _reaching_the_conversation(events, message_events)
    assert len(events) == 2 and len(kept) == 1  # the kiln's supersede, not the press's
    ledger = build_ledger(messages=history, nodes=canvas)
    assert ledger and 0 in ledger.by_position
