"""A user's own words can keep a message from some readers ("keep this between us", "somewhere only
I can see"): the history withholds it from them, whole when short, by sentence when long, and no
"[old value → now …]" marker names a value said only there.

Own sentences (EN and ZH), none from bench/.
"""

from __future__ import annotations

import pytest
from helpers_context import all_text, node

from canvasweb.context.capture.sensitivity import audience_marked
from canvasweb.context.compiler import compile_context
from canvasweb.context.types import CompileRequest, MessageData


def compile_for(role, messages, question="What did we decide?"):
    request = CompileRequest(
        system_prompt="Follow the canvas.",
        question=question,
        nodes=(node("n1", "Kitchen project: plan and budget."),),
        messages=tuple(MessageData(id=f"m{i}", role=r, content=t) for i, (r, t) in enumerate(messages)),
        role=role,
        budget=3000,
    )
    return all_text(compile_context(request=request).messages)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("Gran is giving us £4,200. can that go somewhere only I can see?", "secret"),
        ("he does not want his sisters knowing about the £4,200", "internal"),
        ("奶奶给了我们4200块，先不想让其他亲戚知道。", "internal"),
        ("场地押金谈到了九千，这个数千万别让其他摊主知道", "internal"),
        ("厨师长月薪一万二，这个别让后厨看到哈", "internal"),
        ("the reserve is £900 — don't let the bidders see that figure", "internal"),
        ("别让汤烧干了，小火炖一小时", "public"),
        ("don't let the dough rise more than an hour", "public"),
        ("Gran is giving us £4,200, it's in the budget sheet.", "public"),
        ("I want everyone to know the plan by Friday.", "public"),
    ],
)
def test_what_the_users_words_ask_for(text, level):
    assert audience_marked(text) == level


SHORT_PRIVATE = (
    "Gran is lending us £4,200 to close the gap. can that go on the board somewhere only I can see?"
)


def test_a_short_message_kept_private_is_withheld_whole_from_viewers_and_editors():
    chat = [("user", SHORT_PRIVATE), ("assistant", "Done."), ("user", "Tiles arrive Tuesday.")]
    for role in ("viewer", "editor"):
        assert "4,200" not in compile_for(role, chat)
    assert "4,200" in compile_for("owner", chat)


def test_in_a_long_message_only_the_private_part_is_withheld():
    long = (
        "Right, a few things. The tiler starts on the 14th and needs two days. The skip goes on the drive "
        "for a fortnight at £290. Gran is lending us £4,200 for the gap. She does not want my brothers "
        "knowing. The plasterer is booked for the week after, and the electrician wants the sockets "
        "marked on the wall in pencil before he comes back for the second fix."
    )
    text = compile_for("viewer", [("user", long), ("assistant", "Noted.")])
    assert "£290" in text and "the 14th" in text and "plasterer" in text
    assert "4,200" not in text


def test_a_marker_never_names_a_value_said_only_where_the_reader_may_not_look():
    chat = [
        ("user", "The contingency for the kitchen is £3,000."),
        ("assistant", "Noted: £3,000 contingency."),
        ("user", "Update: the kitchen contingency is now £4,200 thanks to Gran. keep this between us."),
        ("assistant", "OK."),
    ]
    viewer = compile_for("viewer", chat, question="How much is the kitchen contingency?")
    assert "4,200" not in viewer
    editor = compile_for("editor", chat, question="How much is the kitchen contingency?")
    assert "4,200" in editor


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("for the committee only, not the members: the most we'll pay is £1,200 a month.", "internal"),
        ("the key safe code is 4417, please don't put that anywhere the cast can see it.", "secret"),
        ("师傅打了九折，23800，让我们别跟邻居说", "internal"),
        ("补贴每人每天180元。这个别在家长群里提", "internal"),
        ("it's not the members' fault the van was late", "public"),
        ("别在门口停车", "public"),
    ],
)
def test_who_a_fact_is_for_said_in_other_words(text, level):
    assert audience_marked(text) == level
