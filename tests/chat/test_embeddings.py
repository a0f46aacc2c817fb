"""Optional embeddings through the scripted OpenAI-compatible server: cached vectors, hybrid ranking, fallback."""

from __future__ import annotations

import pytest

from canvasweb.chat.embeddings import VectorCache, embedding_inputs
from canvasweb.chat.llm import ModelConfig
from canvasweb.context.compiler import compile_context
from canvasweb.context.types import CompileRequest, MessageData, NodeData, Viewport


@pytest.fixture
def embeddings_on(scripted_llm, settings):
    settings.LLM = {**settings.LLM, "EMBEDDINGS_MODEL": "scripted-embed"}
    return scripted_llm


def _nodes():
    fillers = [
        NodeData(id=f"f{i:02d}", content=f"Parking spot {i} belongs to desk cluster {i}", x=i * 2.0, y=0)
        for i in range(60)
    ]
    return [
        *fillers,
        NodeData(id="pay", content="Graduate salary band: 48,000 to 52,000", x=7000, y=-7000),
        NodeData(id="vault", content="payroll vault key 9f8e7d", x=10, y=10, sensitivity="secret"),
    ]


def test_off_without_a_model_name(scripted_llm):
    assert (
        embedding_inputs(
            question="anything",
            nodes=_nodes(),
            messages=(),
            role="owner",
            config=ModelConfig.from_settings(),
            cache=VectorCache(),
        )
        is None
    )
    assert scripted_llm.embedding_requests == []


def test_vectors_come_from_the_endpoint_and_are_cached(embeddings_on):
    cache = VectorCache()
    msgs = (
        MessageData(id="1", role="user", content="Hello team"),
        MessageData(id="2", role="assistant", content="Hi"),
    )
    got = embedding_inputs(question="who?", nodes=_nodes(), messages=msgs, role="owner", cache=cache)
    assert got is not None and len(got.question) == 64
    assert "pay" in got.nodes and "vault" not in got.nodes  # secret text is never sent
    assert set(got.messages) == {"1", "2"}
    sent = embeddings_on.embedding_requests[-1]["input"]
    assert "payroll vault key 9f8e7d" not in sent and sent[0] == "who?"
    again = embedding_inputs(question="what?", nodes=_nodes(), messages=msgs, role="owner", cache=cache)
    assert embeddings_on.embedding_requests[-1]["input"] == ["what?"]  # everything else from the cache
    assert again.nodes["pay"] == got.nodes["pay"]
    changed = [
        n if n.id != "pay" else NodeData(id="pay", content="Graduate salary band: 50,000", version=2)
        for n in _nodes()
    ]
    embedding_inputs(question="what?", nodes=changed, messages=msgs, role="owner", cache=cache)
    assert embeddings_on.embedding_requests[-1]["input"] == ["what?", "Graduate salary band: 50,000"]


def test_hybrid_ranking_finds_a_paraphrase_the_words_miss(embeddings_on):
    for word, concept in (("newcomers", "graduate"), ("earn", "salary")):
        embeddings_on.alias(word, concept)
    question = "What do newcomers earn?"
    nodes = _nodes()

    def compile_(emb):
        return compile_context(
            request=CompileRequest(
                system_prompt="rules",
                question=question,
                nodes=tuple(nodes),
                viewport=Viewport(),
                role="editor",
                budget=1000,
                embeddings=emb,
            )
        )

    lexical = compile_(None)
    assert "48,000" not in "\n".join(m["content"] for m in lexical.messages)
    emb = embedding_inputs(question=question, nodes=nodes, messages=(), role="editor", cache=VectorCache())
    hybrid = compile_(emb)
    assert "48,000" in "\n".join(m["content"] for m in hybrid.messages)
    assert any(n.node_id == "pay" and n.reason == "question_match" for n in hybrid.report.included_nodes)


def test_an_endpoint_failure_falls_back_to_lexical(embeddings_on):
    embeddings_on.push({"embeddings": True, "status": 500, "body": "down"})
    assert (
        embedding_inputs(question="x", nodes=_nodes(), messages=(), role="owner", cache=VectorCache()) is None
    )
    # the queued failure was for embeddings only and is used up
    assert (
        embedding_inputs(question="x", nodes=_nodes(), messages=(), role="owner", cache=VectorCache())
        is not None
    )
