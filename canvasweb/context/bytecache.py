"""An LRU bounded by (estimated) bytes instead of entry count, and the size estimates it uses.

Entry counts say nothing about memory when entries are whole texts or whole
canvases: 131,072 cached texts of 10 kB each are 1.3 GB. Estimates are cheap
(string lengths, not a deep `sys.getsizeof` walk) and deliberately generous.
Pure: no Django; thread-safe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

# CPython str: ~49 bytes of header, then 1, 2 or 4 bytes per character; plus the dict slot
# and tuple around an entry.
ENTRY_OVERHEAD = 120


def text_bytes(text: str) -> int:
    if not text:
        return 49
    if text.isascii():
        return 49 + len(text)
    top = ord(max(text))  # C speed; CPython stores every character at the widest one's size
    width = 1 if top < 0x100 else (2 if top < 0x10000 else 4)
    return 49 + width * len(text)


class ByteLRU:
    """get/put with least-recently-used eviction once the estimated bytes exceed `max_bytes`."""

    def __init__(self, *, max_bytes: int, sizeof: Callable[[Hashable, Any], int] | None = None) -> None:
        self.max_bytes = max(0, int(max_bytes))
        self._sizeof = sizeof or (
            lambda key, value: (
                ENTRY_OVERHEAD
                + (text_bytes(key[-1]) if isinstance(key, tuple) and key and isinstance(key[-1], str) else 64)
            )
        )
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return default
            self.hits += 1
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: Hashable, value: Any, *, size: int | None = None) -> None:
        size = self._sizeof(key, value) if size is None else size
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if size > self.max_bytes:
                return  # larger than the whole cache: not kept
            self._entries[key] = (value, size)
            self.bytes += size
            while self.bytes > self.max_bytes and self._entries:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped
                self.evictions += 1

    def pop(self, key: Hashable) -> Any:
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is None:
                return None
            self.bytes -= entry[1]
            return entry[0]

    def resize(self, max_bytes: int) -> None:
        with self._lock:
            self.max_bytes = max(0, int(max_bytes))
            while self.bytes > self.max_bytes and self._entries:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped
                self.evictions += 1

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0
