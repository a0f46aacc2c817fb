"""The ledger's result: per message, the retired mentions and the markers that replace them."""

from __future__ import annotations

from ..value_mentions.mention import Mention

OLD_MARKER = "[old value]"
NOW_MARKER = "[old value → now {value}]"


class RetiredValues:
    """The result: per message position, the spans to rewrite."""

    def __init__(self) -> None:
        self.by_position: dict[int, list[tuple[Mention, str]]] = {}
        self.count = 0

    def rewrite(self, position: int, text: str, original: str | None = None) -> str:
        """`text` with the retired values of message `position` replaced by their markers.

        `original` is the message as the ledger read it, when `text` is already a rewritten
        version (sentences retired whole): each value is found again by the words before it,
        and values whose sentence is gone are skipped."""
        spans = self.by_position.get(position)
        if not spans:
            return text
        source = text if original is None else original
        out, last = [], 0
        for m, marker in sorted(spans, key=lambda s: s[0].start):
            if source[m.start : m.end] != m.raw:
                continue  # the message changed since the mention was read
            if original is None:
                at = m.start if m.start >= last else -1
            else:
                at = _relocate(m, source, text, last)
            if at < 0:
                continue
            out.append(text[last:at])
            out.append(marker)
            last = at + len(m.raw)
        out.append(text[last:])
        return "".join(out)

    def __bool__(self) -> bool:
        return bool(self.by_position)


def _occurrences(text: str, raw: str) -> list[int]:
    out, i = [], text.find(raw)
    while i >= 0:
        out.append(i)
        i = text.find(raw, i + 1)
    return out


def _relocate(m: Mention, original: str, text: str, after: int) -> int:
    """Where mention `m` of `original` is in the rewritten `text`, or -1 when its sentence is gone."""
    lead = original[max(0, m.start - 12) : m.start]
    found = text.find(lead + m.raw, after)
    if found >= 0:
        return found + len(lead)
    before, now = _occurrences(original, m.raw), _occurrences(text, m.raw)
    if len(before) == len(now) and m.start in before:
        at = now[before.index(m.start)]
        return at if at >= after else -1
    return -1
