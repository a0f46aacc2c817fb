"""Optional embeddings for hybrid ranking (nodes and past turns), from the configured endpoint.

Off unless `LLM_EMBEDDINGS_MODEL` is set (and the model endpoint is configured,
LLM_BASE_URL / LLM_API_KEY). Vectors come from `POST /v1/embeddings` through the
official openai client and are cached per node version and per message id
(bounded LRU, per process); only texts not cached yet are sent, in batches.
The pure core gets them as plain data (context.types.EmbeddingInputs). Any
failure falls back to lexical ranking only: a prompt is never refused because
the embeddings endpoint is down.

What is sent: node texts the asking role may see (never secret nodes) and
message texts, both through mask_credentials first.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence

import openai
from django.conf import settings

from canvasweb.context.redaction import mask_credentials
from canvasweb.context.types import ROLE_LEVEL, SENSITIVITY_LEVEL, EmbeddingInputs, MessageData, NodeData

from .llm import ModelConfig

log = logging.getLogger(__name__)

BATCH = 128
MAX_TEXT_CHARS = 4000
_CACHE_SIZE = 50_000


def embeddings_model() -> str:
    return (settings.LLM.get("EMBEDDINGS_MODEL") or "").strip()


class VectorCache:
    """Bounded LRU of vectors keyed by (kind, id, version or text)."""

    def __init__(self, max_entries: int = _CACHE_SIZE) -> None:
        self.max_entries = max_entries
        self._data: OrderedDict[tuple, tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> tuple[float, ...] | None:
        with self._lock:
            v = self._data.get(key)
            if v is not None:
                self._data.move_to_end(key)
            return v

    def put(self, key: tuple, vector: tuple[float, ...]) -> None:
        with self._lock:
            self._data[key] = vector
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


VECTORS = VectorCache()
_CLIENTS: dict[tuple, openai.OpenAI] = {}


def _client(config: ModelConfig) -> openai.OpenAI:
    key = (config.base_url, config.api_key, config.timeout, config.max_retries)
    client = _CLIENTS.get(key)
    if client is None:
        client = openai.OpenAI(
            base_url=config.base_url or None,
            api_key=config.api_key or "not-needed",
            timeout=config.timeout,
            max_retries=config.max_retries,
        )
        _CLIENTS.clear()
        _CLIENTS[key] = client
    return client


def embed_texts(*, config: ModelConfig, model: str, texts: Sequence[str]) -> list[tuple[float, ...]]:
    """Vectors for texts, in order (raises openai errors; callers fall back)."""
    out: list[tuple[float, ...]] = []
    client = _client(config)
    for start in range(0, len(texts), BATCH):
        batch = [t[:MAX_TEXT_CHARS] or " " for t in texts[start : start + BATCH]]
        resp = client.embeddings.create(model=model, input=batch)
        rows = sorted(resp.data, key=lambda d: d.index)
        if len(rows) != len(batch):
            raise ValueError(f"embeddings endpoint returned {len(rows)} vectors for {len(batch)} texts")
        out.extend(tuple(float(x) for x in r.embedding) for r in rows)
    return out


def embedding_inputs(
    *,
    question: str,
    nodes: Sequence[NodeData],
    messages: Sequence[MessageData],
    role: str,
    config: ModelConfig | None = None,
    cache: VectorCache = VECTORS,
) -> EmbeddingInputs | None:
    """Question, node and message vectors for one compile; None when off or on any failure."""
    model = embeddings_model()
    config = config or ModelConfig.from_settings()
    if not model or not config.configured:
        return None
    level = ROLE_LEVEL.get(role, 0)
    wanted: list[tuple[tuple, str, str, str]] = []  # (cache key, kind, id, text)
    for n in nodes:
        if (
            n.superseded_by
            or n.archived
            or n.sensitivity == "secret"
            or SENSITIVITY_LEVEL[n.sensitivity] > level
        ):
            continue
        wanted.append((("node", model, n.id, n.version, n.content), "node", n.id, n.content))
    for m in messages:
        if m.role == "tool" or not m.content.strip():
            continue
        wanted.append((("msg", model, m.id, m.content), "msg", m.id, m.content))
    node_vecs: dict[str, tuple[float, ...]] = {}
    msg_vecs: dict[str, tuple[float, ...]] = {}
    missing: list[tuple[tuple, str, str, str]] = []
    for item in wanted:
        v = cache.get(item[0])
        if v is None:
            missing.append(item)
        else:
            (node_vecs if item[1] == "node" else msg_vecs)[item[2]] = v
    try:
        texts = [mask_credentials(question)] + [mask_credentials(t) for _, _, _, t in missing]
        vectors = embed_texts(config=config, model=model, texts=texts)
    except (openai.OpenAIError, ValueError, TypeError) as exc:
        log.warning("embeddings unavailable, lexical ranking only: %s", exc)
        return None
    # An upstream that answers fewer vectors leaves the rest unranked (lexical only).
    for item, v in zip(missing, vectors[1:], strict=False):
        cache.put(item[0], v)
        (node_vecs if item[1] == "node" else msg_vecs)[item[2]] = v
    return EmbeddingInputs(question=vectors[0], nodes=node_vecs, messages=msg_vecs)
