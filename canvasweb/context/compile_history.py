"""The compiler's view of the conversation: each turn prepared once, with retired statements rewritten.

A history message is masked (credentials, secret node values), cut if it is tool
output, and counted through the token cache. For the `canvas` strategy it then
passes the history filters, newest first:

* sentences mostly about nodes this role may not see are withheld (all strategies
  with a restricted role: a viewer's chat may quote internal canvas content);
* statements retired by a later correction in the chat, or restating a
  superseded/archived node, are blanked out (version drift);
* the value ledger (value_ledger/) rewrites each retired value mention.

Baselines keep stale history verbatim. Messages are prepared lazily: turns that
end up folded into the summary are never tokenized.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .capture.sensitivity import SENSITIVITY_RANK, audience_marked
from .capture.values import find_values
from .retire import RESTRICTED_MARKER, retire_outdated
from .selection import CanvasIndex
from .sentences import SentenceInfo
from .tokens import TokenCache, truncate_to_tokens
from .types import MESSAGE_OVERHEAD_TOKENS, ROLE_LEVEL, MessageData, Truncation
from .value_ledger import NOW_MARKER, OLD_MARKER, RetiredValues, build_ledger
from .value_mentions.words import sentence_spans

TOOL_PREFIX = "[tool output]\n"
MIN_USEFUL_TOKENS = 12  # a layer smaller than this is not worth a message


class PreparedMessage:
    """A history message as it will be sent: its text and token count."""

    __slots__ = ("message", "text", "tokens")

    def __init__(self, message: MessageData, text: str, tokens: int) -> None:
        self.message = message
        self.text = text
        self.tokens = tokens

    @property
    def cost(self) -> int:
        return self.tokens + MESSAGE_OVERHEAD_TOKENS

    @property
    def role(self) -> str:
        return "user" if self.message.role == "tool" else self.message.role


class HistoryView:
    """History messages by position, prepared once (newest first) through the history filters.

    Positions index `messages` (the live history); negative positions are the
    archived turns folded into the stored rolling summary, which only recall reads."""

    def __init__(
        self,
        *,
        messages: Sequence[MessageData],
        archived: Sequence[MessageData],
        index: CanvasIndex | None,
        strategy: str,
        role: str,
        retire_values: bool,
        cache: TokenCache,
        mask: Callable[[str], str],
        fingerprint: str,
        tool_max: int,
    ) -> None:
        self.messages = tuple(messages)
        self.archived = tuple(archived)
        self.offset = len(self.archived)
        self.every = self.archived + self.messages
        self.strategy = strategy
        self.cache = cache
        self.mask = mask
        self.fingerprint = fingerprint
        self.tool_max = tool_max
        self.retired: set[str] = set()  # ids of messages whose text the filters changed
        self._later_corrections: list[SentenceInfo] = []
        self._retire_stale = index.is_stale_text if (strategy == "canvas" and index is not None) else None
        self.restricted: Callable[[frozenset[str]], bool] | None = None
        # what a user's own words keep from this reader ("somewhere only I can see"), by rank
        self._reader_rank = ROLE_LEVEL.get(role, 0) if strategy == "canvas" and role != "owner" else None
        self._hidden_values: frozenset[str] | None = None  # values said only where this reader may not look
        if index is not None and role != "owner":

            def restricted(terms: frozenset[str]) -> bool:
                return index.is_restricted_text(terms, role=role)

            self.restricted = restricted
        # Values retired by subject: a later correction in the chat, a supersede or an archive
        # retires a value in every message that states it about that subject.
        self.ledger: RetiredValues | None = (
            _ledger_for(self.every, index, cache)
            if strategy == "canvas" and index is not None and retire_values
            else None
        )
        self._prepared: dict[int, PreparedMessage] = {}
        # A marker never names a value the ledger retired ("corrected later to 4月15日" after a
        # second correction moved it again).
        self._retired_values = (
            frozenset(m.raw for spans in self.ledger.by_position.values() for m, _ in spans)
            if self.ledger is not None
            else frozenset()
        )

    def __len__(self) -> int:
        return len(self.messages)

    def message(self, i: int) -> MessageData:
        return self.every[i + self.offset]

    def current(self, i: int) -> PreparedMessage:
        """History message i (negative = archived), prepared once. Call newest first: each
        message's corrections retire statements in the older ones."""
        got = self._prepared.get(i)
        if got is None:
            got = self._prepared[i] = self._prepare(self.every[i + self.offset], i + self.offset)
        return got

    def as_said(self, i: int) -> MessageData:
        """Message i as the history filters left it (retired statements and values rewritten),
        for the summary."""
        p, m = self.current(i), self.message(i)
        if m.role == "tool" or p.text == m.content:
            return m
        return MessageData(id=m.id + "~filtered", role=m.role, content=p.text)

    def _prepare(self, m: MessageData, position: int) -> PreparedMessage:
        kept = self._audience_filtered(m)
        if kept == RESTRICTED_MARKER:
            self.retired.add(m.id)
            return prepare_message(
                m,
                cache=self.cache,
                mask=self.mask,
                variant=self.fingerprint,
                tool_max=self.tool_max,
                content=RESTRICTED_MARKER,
            )
        p = prepare_message(
            m, cache=self.cache, mask=self.mask, variant=self.fingerprint, tool_max=self.tool_max
        )
        if self.strategy != "canvas" and self.restricted is None:
            return p
        # Sentence filters read the message as said; the value ledger then rewrites what is left.
        said = p.message if kept is None else MessageData(id=f"{m.id}~audience", role=m.role, content=kept)
        raw = retire_outdated(
            message=said,
            later_corrections=self._later_corrections if self.strategy == "canvas" else None,
            is_stale=self._retire_stale,
            is_restricted=self.restricted,
            cache=self.cache,
            position=position,
            retired_values=self._retired_values,
        )
        if raw is None and kept is not None:
            raw = kept
        ledger = self.ledger
        if ledger and position in ledger.by_position:
            raw = ledger.rewrite(position, m.content if raw is None else raw, original=m.content)
            raw = self._unnamed_hidden_values(raw)
        if raw is None or raw == m.content:
            return p
        self.retired.add(p.message.id)
        return prepare_message(
            p.message,
            cache=self.cache,
            mask=self.mask,
            variant=self.fingerprint,
            tool_max=self.tool_max,
            content=raw,
        )

    def _unnamed_hidden_values(self, text: str) -> str:
        """A marker names the value that replaced a retired one ("[old value → now £9,500]"); never one
        this reader may not see, said only in a message withheld from them."""
        if self._reader_rank is None or "→ now" not in text:
            return text
        if self._hidden_values is None:
            hidden: set[str] = set()
            for m in self.every:
                kept = self._audience_filtered(m)
                if kept is not None:
                    said = {v.raw for v in find_values(m.content)}
                    hidden |= said - {v.raw for v in find_values(kept)}
            self._hidden_values = frozenset(hidden)
        hidden_values = self._hidden_values
        if not hidden_values:
            return text
        return _NOW_MARKER_RE.sub(
            lambda g: OLD_MARKER if any(v in g.group(1) for v in hidden_values) else g.group(0), text
        )

    def _audience_filtered(self, m: MessageData) -> str | None:
        """A user's message as a reader of this role may see it, when its own words keep part of it
        from them ("keep this between us", "she does NOT want my brothers knowing … somewhere only I
        can see"); None when nothing is kept back. A short message is withheld whole, since people
        put the warning before or after the fact; in a long one, the marked sentence and the ones
        before it back to the nearest that states a value."""
        if self._reader_rank is None or m.role != "user":
            return None
        rank = self._reader_rank
        return self.cache.memo(
            key=("audience", m.id, rank), source=m.content, compute=lambda: _kept_from(m.content, rank)
        )


_NOW_MARKER_RE = re.compile(re.escape(NOW_MARKER).replace(re.escape("{value}"), r"([^\]]+)"))
SHORT_MESSAGE_CHARS = 280  # a message this short is withheld whole


def _kept_from(text: str, reader_rank: int) -> str | None:
    if SENSITIVITY_RANK[audience_marked(text)] <= reader_rank:
        return None
    spans = sentence_spans(text)
    # a Chinese character says about as much as three Latin letters with their space
    weighted = len(text) + 2 * sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    if len(spans) <= 2 or weighted <= SHORT_MESSAGE_CHARS:
        return RESTRICTED_MARKER
    hidden: set[int] = set()
    for i, (a, b) in enumerate(spans):
        if SENSITIVITY_RANK[audience_marked(text[a:b])] <= reader_rank:
            continue
        # the warning and what it is about: back to the nearest sentence that states a value
        j = i
        while True:
            hidden.add(j)
            x, y = spans[j]
            if j == 0 or any(ch.isdigit() for ch in text[x:y]):
                break
            j -= 1
    out, last = [], 0
    for i in sorted(hidden):
        a, b = spans[i]
        out.append(text[last:a])
        if i - 1 not in hidden:
            out.append(RESTRICTED_MARKER)
        last = b
    out.append(text[last:])
    return "".join(out).strip()


def take_floor(
    history: HistoryView, *, floor_n: int, pool: int, truncations: list[Truncation]
) -> list[PreparedMessage]:
    """The last `floor_n` messages, oldest first, cut to fit `pool` if they alone overflow.

    The floor stays contiguous: once a message does not fit whole, it is cut (if the
    rest is still useful) and older floor messages are left out."""
    cache = history.cache
    n_hist = len(history)
    floor: list[PreparedMessage] = []
    for i in range(n_hist - 1, n_hist - floor_n - 1, -1):
        p = history.current(i)
        if p.cost <= pool:
            floor.append(p)
            pool -= p.cost
            continue
        room = pool - MESSAGE_OVERHEAD_TOKENS
        if room >= MIN_USEFUL_TOKENS:
            cut = truncate_to_tokens(p.text, max_tokens=room, encoding=cache.encoding)
            cut_p = PreparedMessage(p.message, cut, cache.count(cut))
            truncations.append(
                Truncation(
                    layer="recent", item_id=p.message.id, original_tokens=p.tokens, kept_tokens=cut_p.tokens
                )
            )
            floor.append(cut_p)
            pool -= cut_p.cost
        break
    floor.reverse()
    return floor


def take_window(
    history: HistoryView,
    *,
    n_older: int,
    budget: int,
    skip_low_information: Callable[[str], bool] | None,
) -> tuple[list[PreparedMessage], int, int, list[str]]:
    """The recent window before the floor: newest first while it fits, contiguous.

    Returns (window oldest first, first position in the window, budget left, ids of the
    low-information turns left out instead of spending the budget)."""
    window: list[PreparedMessage] = []
    left = budget
    window_start = n_older
    skipped: list[str] = []
    for i in range(n_older - 1, -1, -1):
        p = history.current(i)
        if skip_low_information is not None and skip_low_information(p.message.content):
            skipped.append(p.message.id)
            window_start = i
            continue
        if p.cost > left:
            break
        window.append(p)
        left -= p.cost
        window_start = i
    window.reverse()
    return window, window_start, left, skipped


def prepare_message(
    m: MessageData,
    *,
    cache: TokenCache,
    mask: Callable[[str], str],
    variant: str,
    tool_max: int,
    content: str | None = None,
) -> PreparedMessage:
    """Masked (and for tools, cut) text of a message with its token count, cached.

    `content` replaces the stored text (history with outdated statements omitted).
    """
    source = m.content if content is None else content

    def build() -> str:
        if m.role == "tool":
            text = mask(source)
            text = truncate_to_tokens(text, max_tokens=max(tool_max, 1), encoding=cache.encoding)
            return TOOL_PREFIX + text
        return mask(source)

    if content is not None:
        text, tokens = cache.prepared(
            key=("msg", m.id, variant, tool_max, "retired"), source=source, prepare=build
        )
        return PreparedMessage(m, text, tokens)
    if m.token_count is not None and m.role != "tool":
        # Trust a stored count when masking leaves the text unchanged.
        stored_count = m.token_count

        def memo() -> tuple[str, int]:
            text = build()
            return (text, stored_count if text == m.content else cache.count(text))

        text, tokens = cache.memo(key=("msg", m.id, variant, "counted"), source=m.content, compute=memo)
        return PreparedMessage(m, text, tokens)
    text, tokens = cache.prepared(key=("msg", m.id, variant, tool_max), source=m.content, prepare=build)
    return PreparedMessage(m, text, tokens)


def _ledger_for(
    messages: Sequence[MessageData], index: CanvasIndex, cache: TokenCache | None
) -> RetiredValues:
    """The value ledger, reused while neither the conversation nor the canvas's texts change: previews
    and the compile of a turn read the same one (a build walks the canvas's supersedes and archives,
    ~30 ms at 10,000 nodes)."""
    held: list[tuple[tuple[MessageData, ...], RetiredValues]] = index.derived("value-ledger", list)
    key = tuple(messages)
    entry = held[-1] if held else None  # one (messages, ledger) pair, replaced whole: safe across threads
    if entry is not None and entry[0] == key:
        return entry[1]
    ledger = build_ledger(messages=messages, nodes=index.nodes, cache=cache, memo=index.derived)
    held[:] = [(key, ledger)]
    return ledger
