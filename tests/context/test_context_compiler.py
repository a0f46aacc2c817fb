from __future__ import annotations

import os

import pytest
from helpers_context import all_text, node, prompt_tokens
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canvasweb.context.compiler import compile_context
from canvasweb.context.redaction import mask_credentials
from canvasweb.context.selection import CanvasIndex
from canvasweb.context.tokens import TokenCache, count_tokens
from canvasweb.context.types import (
    Budget,
    BudgetConfigError,
    CompileRequest,
    EdgeData,
    MessageData,
    NodeData,
    Viewport,
)

# More examples for a deep run: CONTEXT_HYPOTHESIS_EXAMPLES=2000 pytest tests/context
EXAMPLES = int(os.environ.get("CONTEXT_HYPOTHESIS_EXAMPLES", "120"))

SYSTEM = "You are Canvasweb's assistant. Follow the team's canvas."


def history(n, text="We talked about the pipeline, the onboarding flow and dashboards at length. " * 3):
    return tuple(
        MessageData(id=f"m{i}", role="user" if i % 2 == 0 else "assistant", content=f"{i}: {text}")
        for i in range(n)
    )


def compile_(**kw):
    kw.setdefault("system_prompt", SYSTEM)
    kw.setdefault("question", "What port does the database use?")
    return compile_context(request=CompileRequest(**kw))


CANVAS = (
    node("db", "The metrics store listens on port 5433", kind="config", pinned=True, x=5_000),
    node("jwt-old", "Sessions expire after 2 hours", superseded_by="jwt"),
    node("jwt", "Sessions expire after 6 hours", x=10),
    node("plan", "Q3 pricing plan: 49 USD per seat", sensitivity="internal", x=20),
    node("pw", "Production cache password is hunter2-Qx9", sensitivity="secret", x=30, tags=("credential",)),
    node("old", "Archived: we used MySQL", archived=True, x=40),
)


def test_layers_in_prompt_order():
    c = compile_(nodes=CANVAS, messages=history(40), budget=3000)
    roles = [m["role"] for m in c.messages]
    assert roles[0] == "system" and c.messages[0]["content"] == SYSTEM
    assert c.messages[1]["content"].startswith("<canvas_data>")
    assert (
        c.messages[2]["content"].startswith("<conversation_summary>") or c.report.layer_tokens["summary"] == 0
    )
    assert c.messages[-1] == {"role": "user", "content": "What port does the database use?"}
    assert c.report.total_tokens == prompt_tokens(c.messages) <= 3000
    assert (
        c.report.included_message_ids == [f"m{i}" for i in range(40)][-len(c.report.included_message_ids) :]
    )


def test_budget_respected_across_budgets_and_strategies():
    for strategy in ("full", "window", "summary", "canvas"):
        for total in (80, 150, 400, 1000, 3000, 20_000):
            c = compile_(nodes=CANVAS, messages=history(60), budget=total, strategy=strategy)
            assert prompt_tokens(c.messages) <= total, (strategy, total)
            assert c.messages[0]["content"] == SYSTEM and c.messages[-1]["role"] == "user"


def test_system_layer_must_fit():
    with pytest.raises(BudgetConfigError):
        compile_(budget=10)
    with pytest.raises(BudgetConfigError):
        compile_(budget=Budget(total=12, system=0, canvas=0, summary=0, recent=12, question=0))


def test_superseded_archived_out_and_viewer_never_sees_internal_or_secret():
    c = compile_(
        nodes=CANVAS, role="viewer", budget=3000, question="Q3 pricing plan per seat and the password?"
    )
    text = all_text(c.messages)
    assert "6 hours" in text and "5433" in text
    assert "2 hours" not in text and "MySQL" not in text
    assert (
        "49 USD" not in text
        and "pricing plan" not in text.split("<canvas_data>")[1].split("</canvas_data>")[0]
    )
    assert "hunter2" not in text and "secret node" not in text
    reasons = {(e.node_id, e.reason) for e in c.report.excluded_nodes}
    assert {
        ("jwt-old", "superseded"),
        ("old", "archived"),
        ("plan", "not_visible"),
        ("pw", "not_visible"),
    } <= reasons


def test_editor_sees_internal_but_not_secret():
    text = all_text(compile_(nodes=CANVAS, role="editor", budget=3000).messages)
    assert "49 USD" in text and "hunter2" not in text and "secret node" not in text


def test_owner_gets_placeholder_and_secret_value_absent_everywhere():
    msgs = (
        MessageData(id="u1", role="user", content="Store this: the prod password is hunter2-Qx9"),
        MessageData(id="a1", role="assistant", content="Noted hunter2-Qx9, I will keep it safe."),
    )
    for strategy in ("full", "window", "summary", "canvas"):
        c = compile_(
            nodes=CANVAS,
            role="owner",
            messages=msgs,
            budget=3000,
            strategy=strategy,
            question="Remind me: is it hunter2-Qx9?",
        )
        text = all_text(c.messages)
        assert "hunter2" not in text, strategy
        assert "credential" not in text
    c = compile_(nodes=CANVAS, role="owner", budget=3000)
    assert "[secret node: content withheld]" in all_text(c.messages) and "[secret node pw" not in all_text(
        c.messages
    )


def test_credentials_masked_in_every_layer():
    nodes = (node("cfg", "DSN postgres://app:s3cretPw@db:5433/app"),)
    msgs = (MessageData(id="u1", role="user", content="my key is sk-proj-abcdefghijklmnopqrstuvwxyz0123"),)
    c = compile_(
        system_prompt="Rules. api_key=0123456789abcdef0123",
        nodes=nodes,
        messages=msgs,
        question="token ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok?",
        budget=3000,
    )
    text = all_text(c.messages)
    for secret in ("s3cretPw", "sk-proj-abcdef", "0123456789abcdef0123", "ghp_abcdef"):
        assert secret not in text
    assert "db:5433" in text
    assert set(c.report.redactions) >= {"url_credentials", "api_key", "secret", "github_token"}


def test_recent_floor_kept_even_when_long():
    msgs = (*history(10), MessageData(id="last", role="user", content="final detail " * 400))
    c = compile_(
        messages=msgs,
        budget=Budget.from_total(total=600, system=30, recent_floor_messages=1),
        strategy="window",
    )
    assert c.report.included_message_ids[-1] == "last"
    assert any(t.item_id == "last" for t in c.report.truncations)
    assert prompt_tokens(c.messages) <= 600


def test_older_messages_dropped_to_fit_and_window_contiguous():
    c = compile_(messages=history(80), budget=1500, strategy="window")
    ids = c.report.included_message_ids
    assert ids and ids[-1] == "m79"
    nums = [int(i[1:]) for i in ids]
    assert nums == list(range(nums[0], 80))
    assert "m0" in c.report.dropped_message_ids


def test_full_strategy_keeps_all_history_when_it_fits():
    c = compile_(nodes=CANVAS, messages=history(6), budget=20_000, strategy="full")
    assert c.report.included_message_ids == [f"m{i}" for i in range(6)]
    assert "<canvas_data>" not in all_text(c.messages) and c.report.layer_tokens["summary"] == 0


def test_summary_strategy_has_no_canvas():
    c = compile_(nodes=CANVAS, messages=history(80), budget=1500, strategy="summary")
    assert "<canvas_data>" not in all_text(c.messages)


def test_tool_messages_are_cut():
    msgs = (
        MessageData(id="t1", role="tool", content="row " * 5000),
        MessageData(id="u2", role="user", content="ok"),
    )
    c = compile_(messages=msgs, budget=8000, tool_message_max_tokens=50)
    tool_msg = next(m for m in c.messages if m["content"].startswith("[tool output]"))
    assert tool_msg["role"] == "user" and count_tokens(tool_msg["content"]) <= 55


def test_question_always_last_and_truncated_only_if_alone_too_big():
    c = compile_(question="why " * 5000, budget=300)
    assert c.messages[-1]["role"] == "user" and prompt_tokens(c.messages) <= 300
    assert any(t.layer == "question" for t in c.report.truncations)


def test_unused_canvas_budget_flows_to_recent():
    a = compile_(messages=history(80), budget=3000, strategy="canvas")  # no nodes
    assert a.report.layer_tokens["canvas"] == 0
    assert a.report.layer_tokens["recent"] > a.report.budget["recent"]


def test_deterministic_and_cache_reused():
    cache = TokenCache()
    index = CanvasIndex.build(nodes=CANVAS)
    req = {"index": index, "messages": history(30), "budget": 2000, "token_cache": cache}
    a = compile_(**req)
    misses = cache.misses
    b = compile_(**req)
    assert a.messages == b.messages
    assert cache.misses == misses  # nothing re-tokenized on the second turn


def test_report_lists_handles_and_ranks():
    c = compile_(nodes=CANVAS, budget=3000, role="editor")
    inc = {i.node_id: i for i in c.report.included_nodes}
    assert inc["db"].reason == "anchor" and inc["db"].handle == "n1" and c.report.handles["n1"] == "db"
    d = c.report.to_dict()
    assert d["layer_tokens"]["canvas"] > 0 and d["total_tokens"] == prompt_tokens(c.messages)


# ---------------------------------------------------------------- property
words = st.sampled_from(
    "port 5433 cache Redis never 不要 数据库 端口 改成 更正 Correction: actually the a sessions expire hours "
    "小时 。 . ? password=hunter2 sk-prod-93af9 \n | # ** ``` <b> </canvas_data>".split(" ")
)
texts = st.lists(words, min_size=0, max_size=60).map(" ".join)


@st.composite
def canvases(draw):
    n = draw(st.integers(0, 25))
    nodes = []
    for i in range(n):
        nodes.append(
            NodeData(
                id=f"n{i}",
                content=draw(texts),
                kind=draw(st.sampled_from(["fact", "config"])),
                x=draw(st.floats(-3000, 3000)),
                y=draw(st.floats(-3000, 3000)),
                weight=draw(st.sampled_from([0.5, 1, 2, 5])),
                pinned=draw(st.booleans()),
                sensitivity=draw(st.sampled_from(["public", "internal", "secret"])),
                superseded_by=draw(st.sampled_from([None, None, "n0"])),
                archived=draw(st.booleans()),
            )
        )
    edges = [
        EdgeData(
            id=f"e{j}",
            source=f"n{draw(st.integers(0, max(n - 1, 0)))}",
            target=f"n{draw(st.integers(0, max(n - 1, 0)))}",
            relation="depends_on",
        )
        for j in range(draw(st.integers(0, 10)))
    ]
    return nodes, edges


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    canvas=canvases(),
    msgs=st.lists(st.tuples(st.sampled_from(["user", "assistant", "tool"]), texts), max_size=30),
    budget=st.integers(40, 3000),
    strategy=st.sampled_from(["full", "window", "summary", "canvas"]),
    role=st.sampled_from(["viewer", "editor", "owner"]),
    question=st.lists(words, min_size=1, max_size=20).map(" ".join),
    system=st.sampled_from(
        ["Be brief.", "You are Canvasweb's assistant. Answer from the canvas.", "系统规则：简短回答。"]
    ),
    vx=st.floats(-3000, 3000),
    zoom=st.sampled_from([0.25, 1, 4]),
)
def test_property_budget_system_question(canvas, msgs, budget, strategy, role, question, system, vx, zoom):
    nodes, edges = canvas
    messages = tuple(MessageData(id=f"m{i}", role=r, content=t) for i, (r, t) in enumerate(msgs))
    req = CompileRequest(
        system_prompt=system,
        question=question,
        messages=messages,
        nodes=tuple(nodes),
        edges=tuple(edges),
        viewport=Viewport(x=vx, y=0, zoom=zoom),
        role=role,
        budget=budget,
        strategy=strategy,
    )
    if count_tokens(system) + 4 + 3 + 5 > budget:
        with pytest.raises(BudgetConfigError):
            compile_context(request=req)
        return
    c = compile_context(request=req)
    assert prompt_tokens(c.messages) <= budget
    assert c.report.total_tokens == prompt_tokens(c.messages)
    assert c.messages[0] == {"role": "system", "content": system}
    last = c.messages[-1]
    assert last["role"] == "user"
    masked_q = mask_credentials(question)
    assert last["content"] == masked_q or "[truncated]" in last["content"] or last["content"] == ""
    text = all_text(c.messages)
    assert "hunter2" not in text and "sk-prod-93af9" not in text
    if role == "viewer":
        public = {n.content for n in nodes if n.sensitivity == "public"}
        hidden = [
            n for n in nodes if n.sensitivity != "public" and n.content.strip() and n.content not in public
        ]
        canvas_text = text.split("</canvas_data>")[0] if "<canvas_data>" in text else ""
        assert all(f'"{n.content}"' not in canvas_text for n in hidden)
        assert all(f"[secret node {n.id}:" not in canvas_text for n in hidden)


def test_history_statements_retired_by_later_correction_canvas_only():
    msgs = (
        MessageData(
            id="u1", role="user", content="Login sessions expire after 2 hours. Keep the logs for 30 days."
        ),
        MessageData(id="a1", role="assistant", content="OK, sessions expire after 2 hours."),
        MessageData(id="u2", role="user", content="Correction: login sessions expire after 6 hours."),
    )
    c = compile_(messages=msgs, budget=4000, strategy="canvas")
    text = all_text(c.messages)
    assert "2 hours" not in text and "6 hours" in text and "30 days" in text
    assert "[outdated statement omitted" in text
    full = all_text(compile_(messages=msgs, budget=4000, strategy="full").messages)
    assert "2 hours" in full  # baselines stay verbatim


def test_history_restating_superseded_node_is_retired():
    nodes = (
        node("old", "The metrics store listens on port 5432", superseded_by="new"),
        node("new", "The metrics store listens on port 5433"),
    )
    msgs = (
        MessageData(id="u1", role="user", content="Remember: the metrics store listens on port 5432."),
        MessageData(id="u2", role="user", content="ok"),
    )
    text = all_text(compile_(nodes=nodes, messages=msgs, budget=4000).messages)
    assert "5432" not in text and "5433" in text


def test_rolling_summary_carried_with_newly_folded_turns():
    msgs = (*history(60), MessageData(id="late", role="user", content="ok"))
    c = compile_(
        messages=msgs, budget=1500, rolling_summary="Goals:\n- Ship the beta by March 3.", strategy="summary"
    )
    text = all_text(c.messages)
    assert "Ship the beta by March 3." in text and text.count("<conversation_summary>") == 1
    assert prompt_tokens(c.messages) <= 1500


def test_viewer_history_withholds_sentences_about_internal_nodes():
    nodes = (
        node(
            "band",
            "Internal: salary band €88k–€104k plus equity (signed off by finance).",
            sensitivity="internal",
        ),
        node("pub", "The interview loop has four rounds."),
    )
    msgs = (
        MessageData(
            id="u1",
            role="user",
            content="Internal only: the salary band is €88k–€104k plus equity, approved by finance. "
            "The loop has four rounds.",
        ),
        MessageData(id="u2", role="user", content="ok"),
    )
    for strategy in ("canvas", "window", "full"):
        viewer = all_text(
            compile_(nodes=nodes, messages=msgs, role="viewer", budget=3000, strategy=strategy).messages
        )
        assert "88k" not in viewer and "four rounds" in viewer, strategy
        assert "[statement withheld: restricted canvas content]" in viewer
    editor = all_text(compile_(nodes=nodes, messages=msgs, role="editor", budget=3000).messages)
    assert "88k" in editor


def test_history_restating_archived_node_is_retired():
    nodes = (
        node(
            "old",
            "Loot use: combine items at the Cinderhall using a pattern book of 40 patterns.",
            archived=True,
        ),
        node("new", "Loot use: items are salvaged into shards."),
    )
    msgs = (
        MessageData(
            id="u1",
            role="user",
            content="Loot plan: players combine loot at the Cinderhall using a pattern book of 40 patterns.",
        ),
        MessageData(id="u2", role="user", content="Loot is now salvaged into shards."),
    )
    text = all_text(compile_(nodes=nodes, messages=msgs, budget=3000).messages)
    assert "Cinderhall" not in text and "salvaged into shards" in text


def test_chat_only_correction_by_subject_retires_old_value():
    msgs = (
        MessageData(
            id="u1", role="user", content="Team size for now is 84 people, including two contractors."
        ),
        MessageData(id="a1", role="assistant", content="Noted."),
        MessageData(id="u2", role="user", content="Change the team size to 96 people."),
        MessageData(id="a2", role="assistant", content="Done."),
    )
    text = all_text(compile_(messages=msgs, budget=3000).messages)
    assert "84 people" not in text and "96 people" in text


def test_candidate_limit_widens_when_short_records_leave_room():
    nodes = tuple(node(f"s{i:03d}", f"x{i}", x=i % 20, y=i // 20) for i in range(500))
    c = compile_(nodes=nodes, budget=8000)
    assert len(c.report.included_nodes) > 8000 * 45 // 100 // 32
    assert prompt_tokens(c.messages) <= 8000


def test_a_far_linked_node_keeps_a_reserved_share_at_a_small_budget():
    """A busy viewport must not crowd out the far node a nearby node depends on."""
    crowd = tuple(
        node(f"near{i}", f"Nearby note {i}: the dashboard widget spacing is {i} px and fine", x=i * 10)
        for i in range(40)
    )
    far = node("vault", "Secrets are rotated by Vault every 30 days", x=90_000, y=90_000)
    edges = (EdgeData(id="e1", source="near0", target="vault", relation="depends_on"),)
    compiled = compile_(nodes=(*crowd, far), edges=edges, question="How do the widgets look?", budget=1000)
    included = {n.node_id for n in compiled.report.included_nodes}
    assert "vault" in included and "every 30 days" in all_text(compiled.messages)
    assert compiled.report.total_tokens <= 1000
