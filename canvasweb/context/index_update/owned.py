"""What a copy-on-write update owns: the parts of the index it may change in place."""

from __future__ import annotations


class _Everything:
    """An ownership set that holds every key: nothing needs copying before a write (in place)."""

    def __contains__(self, key: object) -> bool:
        return True

    def add(self, key: object) -> None:
        pass
