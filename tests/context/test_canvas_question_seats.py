"""Busy canvases: question seats by score, feedback matches, stems, hidden values (own text, EN + ZH).

Each mechanism has a control that switches it off and shows the result changes.
"""

from __future__ import annotations

import pytest
from helpers_context import node

from canvasweb.context import render as render_mod
from canvasweb.context import selection as selection_mod
from canvasweb.context.compiler import compile_context
from canvasweb.context.selection import GROUP_QUESTION, CanvasIndex, select_nodes
from canvasweb.context.text import extract_terms, stem
from canvasweb.context.types import CompileRequest, Viewport

SYSTEM = "You are the team assistant."

# Nearby notes with numbers of their own, none about the question.
NEAR_EN = [
    "Office plants get watered on Tuesdays by Rhiannon.",
    "The projector in room B needs a new lamp, about 40 dollars.",
    "Team lunch budget is 25 per head this quarter.",
    "Printer toner reorder point: 3 cartridges left.",
    "Visitor badges are kept in the second drawer, 12 of them.",
    "The fridge gets emptied every Friday at 17:00.",
    "Bike rack holds 14 bikes; the back one is broken.",
    "Fire warden for floor two is Osei.",
]
FAR_EN = [
    "The harbour ferry timetable changes in spring.",
    "Ferry tickets for the offsite: 22 booked.",
    "Ferry operator contact: Moreau.",
    "Spare ferry seats can be released 48 hours before.",
]


def _canvas(near: list[str], far: list[str], *, answer: str, answer_xy: tuple[float, float]):
    nodes = [node(f"near{i}", t, x=60.0 * (i + 1), y=0.0) for i, t in enumerate(near)]
    nodes += [node(f"far{i}", t, x=6000.0 + 80 * i, y=5000.0) for i, t in enumerate(far)]
    nodes.append(node("answer", answer, x=answer_xy[0], y=answer_xy[1]))
    return CanvasIndex.build(nodes=nodes, edges=[])


def _block(index: CanvasIndex, question: str, budget: int = 900) -> str:
    compiled = compile_context(
        request=CompileRequest(
            system_prompt=SYSTEM,
            question=question,
            index=index,
            viewport=Viewport(x=0, y=0, zoom=1),
            role="editor",
            budget=budget,
        )
    )
    return compiled.messages[1]["content"]


# ---------------------------------------------------------------- question seats by score
def test_a_nearby_node_that_answers_the_question_is_seated_before_weaker_far_matches(monkeypatch):
    # The answer sits near the viewport (last in distance order); far notes share one question word.
    index = _canvas(
        NEAR_EN * 2,
        FAR_EN,
        answer="Ferry for the offsite leaves the north pier at 07:40 sharp.",
        answer_xy=(1100.0, 0.0),
    )
    question = "what time does the ferry leave from the pier for the offsite?"
    assert "07:40" in _block(index, question)

    # Control: only question-group candidates in the question share (the behaviour before).
    def question_group_only(candidates):
        return [c for c in candidates if c.group == GROUP_QUESTION]

    monkeypatch.setattr(render_mod, "_question_pool", question_group_only)
    assert "07:40" not in _block(index, question)


def test_question_seats_follow_score_in_chinese(monkeypatch):
    near = [
        "茶水间的咖啡豆每周一补货，一次 2 公斤",
        "会议室 A 的投影仪遥控器放在前台",
        "快递统一放在一楼收发室，保留 7 天",
        "工位绿植由行政每周三浇水",
        "访客登记本在前台左边第二个抽屉",
        "打印机墨盒剩 3 个时补货",
        "周五下午 4 点后空调自动关闭",
        "自行车停车位一共 14 个",
    ]
    far = ["团建大巴公司联系人：老周", "团建大巴一共两辆，每辆 45 座", "团建大巴押金已付"]
    index = _canvas(near * 2, far, answer="团建大巴早上 7点40分 在公司北门发车", answer_xy=(1100.0, 0.0))
    question = "团建大巴几点从北门发车？"
    assert "7点40分" in _block(index, question)

    monkeypatch.setattr(render_mod, "_question_pool", lambda cs: [c for c in cs if c.group == GROUP_QUESTION])
    assert "7点40分" not in _block(index, question)


# ---------------------------------------------------------------- feedback matches
def _feedback_canvas():
    nodes = [node(f"near{i}", t, x=50.0 * (i + 1), y=0.0) for i, t in enumerate(NEAR_EN)]
    nodes += [
        node("seed", "Telescope night: members voted on the snack menu (2 options).", x=9000, y=9000),
        node("target", "Telescope night snacks: spiced pumpkin muffins from Halvard's.", x=-9000, y=9000),
        node("other", "Telescope night parking is behind the observatory.", x=9000, y=-9000),
        node("noise", "The snack cupboard lock code changes monthly.", x=-9000, y=-9000),
    ]
    return CanvasIndex.build(nodes=nodes, edges=[])


def _question_ids(index: CanvasIndex, question: str) -> list[str]:
    sel = select_nodes(index=index, viewport=Viewport(x=0, y=0, zoom=1), role="editor", question=question)
    return [c.node.id for c in sel.candidates if c.group == GROUP_QUESTION]


def test_words_of_the_best_match_find_a_note_that_shares_none_with_the_question(monkeypatch):
    index = _feedback_canvas()
    question = "which baked treat did the members choose from the menu?"
    assert "target" not in {
        i for i, _ in selection_mod._question_scores(index, extract_terms(question)).items()
    }  # no direct word in common
    ids = _question_ids(index, question)
    assert ids[0] == "seed" and "target" in ids

    monkeypatch.setattr(selection_mod, "FEEDBACK_WEIGHT", 0.0)
    assert "target" not in _question_ids(index, question)


def test_feedback_scores_stay_below_their_seed_and_skip_numbers():
    index = _feedback_canvas()
    q = extract_terms("which baked treat did the members choose from the menu?")
    base = selection_mod._question_scores(index, q)
    out = selection_mod._feedback_scores(index, base, q, role_level=2)
    seed = index.pos["seed"]
    target = index.pos["target"]
    assert 0 < out[target] < out[seed]
    assert all(out.get(i, 0) >= s for i, s in base.items())  # direct matches never lose score


def test_feedback_for_a_viewer_never_starts_from_a_node_it_cannot_see():
    nodes = [
        node("hidden", "Vault drill: the team picked the copper key ring.", sensitivity="internal", x=0, y=0),
        node("visible", "Copper key ring engraving takes 3 days.", x=5000, y=5000),
        node("filler1", "Parking permits renew in March.", x=10, y=10),
        node("filler2", "Coffee machine descaling monthly.", x=20, y=20),
    ]
    index = CanvasIndex.build(nodes=nodes, edges=[])
    q = extract_terms("what did the team pick for the vault drill?")
    base = selection_mod._question_scores(index, q)
    out = selection_mod._feedback_scores(index, base, q, role_level=0)
    assert index.pos["visible"] not in out


# ---------------------------------------------------------------- stems
@pytest.mark.parametrize(
    ("a", "b"),
    [("stopped", "stops"), ("resetting", "reset"), ("planned", "plan"), ("shipping", "ships")],
)
def test_doubled_consonants_are_undone(a, b):
    assert stem(a) == stem(b)


@pytest.mark.parametrize("word", ["called", "passed", "staffed", "added"])
def test_real_double_letters_stay(word):
    assert stem(word) == word[:-2]


# ---------------------------------------------------------------- hidden values in chat
def _role_index():
    return CanvasIndex.build(
        nodes=[
            node(
                "deal",
                "Internal: the lease is 9% under asking because we signed for five years, agreed by Brackenridge.",
                sensitivity="internal",
            ),
            node("pub", "The new office lease starts on 1 March.", x=100),
            node("pub2", "Desks: 40 ordered for the new office.", x=200),
        ],
        edges=[],
    )


def test_a_sentence_that_wraps_a_hidden_value_in_other_words_is_withheld_from_a_viewer(monkeypatch):
    index = _role_index()
    said = extract_terms(
        "between us, and please don't repeat it around the office kitchen or on slack, "
        "we got 9% under asking since we signed for five years"
    )
    assert index.is_restricted_text(said, role="viewer")
    assert not index.is_restricted_text(said, role="editor")

    monkeypatch.setattr(
        CanvasIndex, "_hidden_value", lambda self, term, role_level, subject=frozenset(): False
    )
    fresh = _role_index()
    assert not fresh.is_restricted_text(said, role="viewer")  # the share rule alone misses it


def test_a_value_a_viewer_may_see_is_not_withheld():
    index = _role_index()
    said = extract_terms("btw we ordered 40 desks for the office, under asking price, signed for years")
    assert not index.is_restricted_text(said, role="viewer")


def test_hidden_value_in_chinese_is_withheld(monkeypatch):
    def build():
        return CanvasIndex.build(
            nodes=[
                node(
                    "deal",
                    "内部：房租比挂牌价低 9%，因为签了五年，中介是城南置业的小吴，合同在法务柜",
                    sensitivity="internal",
                ),
                node("pub", "新办公室 3月1日 起租", x=100),
            ],
            edges=[],
        )

    said = extract_terms("私下说一句，房租比挂牌价低 9%，签了五年，别外传")
    assert build().is_restricted_text(said, role="viewer")
    monkeypatch.setattr(
        CanvasIndex, "_hidden_value", lambda self, term, role_level, subject=frozenset(): False
    )
    assert not build().is_restricted_text(said, role="viewer")


def test_a_hidden_number_a_visible_note_uses_for_something_else_is_still_withheld():
    index = CanvasIndex.build(
        nodes=[
            node("floor", "内部：供应商底价 42 元一件，低于这个不做", sensitivity="internal"),
            node("pub", "每周例会 42 分钟，周一上午", x=100),
        ],
        edges=[],
    )
    said = extract_terms("底价 42 元设成内部卡片了，品牌方看不到。")
    assert index.is_restricted_text(said, role="viewer")
    # control: the visible note's own use of the number
    assert not index.is_restricted_text(extract_terms("例会开了 42 分钟，挺长的"), role="viewer")
