"""Plain data for the pure context compiler.

Everything here is a frozen dataclass built from ORM rows by the caller; the
compiler never imports Django. Keyword-only construction keeps call sites
readable and stops positional mix-ups between the many float fields.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Sensitivity = Literal["public", "internal", "secret"]
Role = Literal["viewer", "editor", "owner"]
MessageRole = Literal["user", "assistant", "tool"]
Strategy = Literal["full", "window", "summary", "canvas"]

SENSITIVITIES: tuple[str, ...] = ("public", "internal", "secret")
ROLES: tuple[str, ...] = ("viewer", "editor", "owner")
STRATEGIES: tuple[str, ...] = ("full", "window", "summary", "canvas")

# Ordinal levels: a role sees a node when node level <= role level.
SENSITIVITY_LEVEL: dict[str, int] = {"public": 0, "internal": 1, "secret": 2}
ROLE_LEVEL: dict[str, int] = {"viewer": 0, "editor": 1, "owner": 2}

# OpenAI chat format costs a few tokens per message on top of its content
# (role, start/end markers: 3 for gpt-4-class models, +1 if a name is set),
# and the reply is primed with 3 more. We charge 4 per message and 3 once so
# that our count is never below what the API bills.
MESSAGE_OVERHEAD_TOKENS = 4
REPLY_PRIMING_TOKENS = 3


class BudgetConfigError(ValueError):
    """The budget cannot hold the layers that are never trimmed."""


@dataclass(frozen=True, kw_only=True, slots=True)
class NodeData:
    id: str
    content: str
    kind: str = "fact"
    x: float = 0.0
    y: float = 0.0
    weight: float = 1.0
    tags: tuple[str, ...] = ()
    pinned: bool = False
    sensitivity: Sensitivity = "public"
    superseded_by: str | None = None
    archived: bool = False
    version: int = 1
    updated_at: str | None = None

    def __post_init__(self) -> None:
        if self.sensitivity not in SENSITIVITY_LEVEL:
            # Fail closed: an unknown level must never be treated as public.
            raise ValueError(f"unknown sensitivity {self.sensitivity!r}")
        if not isinstance(self.tags, tuple):
            object.__setattr__(self, "tags", tuple(self.tags))
        if not (math.isfinite(self.x) and math.isfinite(self.y) and math.isfinite(self.weight)):
            raise ValueError("node position and weight must be finite")


@dataclass(frozen=True, kw_only=True, slots=True)
class EdgeData:
    id: str
    source: str
    target: str
    relation: str = "relates_to"
    label: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class MessageData:
    id: str
    role: MessageRole
    content: str
    # Optional precomputed count of `content` with the same encoding
    # (tokens.count_tokens); lets the compiler skip tokenizing unchanged text.
    token_count: int | None = None
    # When it was said (ISO 8601), if known: orders chat corrections against the
    # canvas's supersedes and archives (NodeData.updated_at).
    created_at: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ("user", "assistant", "tool"):
            raise ValueError(f"unknown message role {self.role!r}")


@dataclass(frozen=True, kw_only=True, slots=True)
class Viewport:
    """x, y is the canvas point at the centre of the screen.

    The visible rectangle is (width / zoom) x (height / zoom) canvas units.
    width/height default to a common laptop canvas pane so that callers that
    only know x, y, zoom (e.g. drift scenarios) still get a sensible radius.
    """

    x: float = 0.0
    y: float = 0.0
    zoom: float = 1.0
    width: float = 1280.0
    height: float = 800.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.x) and math.isfinite(self.y)):
            raise ValueError("viewport centre must be finite")
        if not (self.zoom > 0 and math.isfinite(self.zoom)):
            raise ValueError("zoom must be a positive finite number")
        if not (
            self.width > 0 and self.height > 0 and math.isfinite(self.width) and math.isfinite(self.height)
        ):
            raise ValueError("viewport width and height must be positive")

    @property
    def half_diagonal(self) -> float:
        return math.hypot(self.width / self.zoom / 2.0, self.height / self.zoom / 2.0)


@dataclass(frozen=True, kw_only=True, slots=True)
class Budget:
    """Token plan per layer. `system` is what the system layer may use."""

    total: int
    system: int
    canvas: int
    summary: int
    recent: int
    question: int
    recent_floor_messages: int = 2
    # Past turns outside the recent window that answer the question (history_recall).
    recall: int = 0

    def __post_init__(self) -> None:
        parts = (self.system, self.canvas, self.summary, self.recent, self.question, self.recall)
        if self.total <= 0 or any(p < 0 for p in parts) or self.recent_floor_messages < 0:
            raise BudgetConfigError("budget parts must be non-negative and total positive")
        if sum(parts) > self.total:
            raise BudgetConfigError(f"layer budgets {sum(parts)} exceed total {self.total}")

    @classmethod
    def from_total(
        cls,
        *,
        total: int,
        system: int,
        canvas_share: float = 0.40,
        summary_share: float = 0.30,
        recent_share: float = 0.10,
        recall_share: float = 0.15,
        recent_floor_messages: int = 2,
    ) -> Budget:
        """Split what is left after the system layer by shares; the rest is the question's.

        The window is small by design: its last `recent_floor_messages` are kept whatever they
        cost, and beyond them older raw turns answer less than the summary's sentences, which are
        picked across the whole conversation by the question's words and by what they state.
        """
        shares = (canvas_share, summary_share, recent_share, recall_share)
        if any(s < 0 for s in shares) or sum(shares) > 1.0 + 1e-9:
            raise BudgetConfigError(f"shares must be >= 0 and sum to <= 1, got {shares}")
        if system > total:
            raise BudgetConfigError(f"system layer needs {system} tokens but total budget is {total}")
        available = total - system
        canvas = int(available * canvas_share)
        summary = int(available * summary_share)
        recent = int(available * recent_share)
        recall = int(available * recall_share)
        question = available - canvas - summary - recent - recall
        return cls(
            recall=recall,
            total=total,
            system=system,
            canvas=canvas,
            summary=summary,
            recent=recent,
            question=question,
            recent_floor_messages=recent_floor_messages,
        )


@dataclass(frozen=True, kw_only=True, slots=True)
class SelectionConfig:
    # Radius (in effective-distance units) = radius_factor * half-diagonal of
    # the visible rectangle, so the area follows zoom.
    radius_factor: float = 1.5
    # Upper bound of spatial candidates ranked per compile; the compiler lowers
    # it to what the canvas budget could possibly hold.
    max_candidates: int = 2000
    max_neighbours_per_node: int = 8
    max_question_matches: int = 20
    question_min_score: float = 0.0  # strictly greater than this
    # Share of the canvas budget kept for question matches so that a node that
    # answers the question is not crowded out by a busy viewport.
    question_reserve_share: float = 0.25
    # Minimum weight used in distance / weight, so weight 0 cannot divide by 0.
    min_weight: float = 0.05
    # Cap on how many exclusions are listed per reason (counts stay exact-ish).
    report_limit: int = 200
    # Priority that ages: an unpinned node's weight halves every
    # `decay_half_life_days` since its updated_at (relative to the request's
    # `now`), down to `decay_floor` of its weight. 0 disables the decay.
    decay_half_life_days: float = 30.0
    decay_floor: float = 0.15


@dataclass(frozen=True, kw_only=True)
class CompileRequest:
    system_prompt: str
    question: str
    messages: tuple[MessageData, ...] = ()
    nodes: tuple[NodeData, ...] = ()
    edges: tuple[EdgeData, ...] = ()
    # A prebuilt selection.CanvasIndex for this canvas version; built from
    # nodes/edges when absent. Typed Any to keep this module import-free.
    index: Any = None
    viewport: Viewport = field(default_factory=Viewport)
    role: Role = "editor"
    budget: Budget | int = 8000
    strategy: Strategy = "canvas"
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    token_cache: Any = None  # tokens.TokenCache
    encoding: str | None = None
    tool_message_max_tokens: int = 400
    max_node_tokens: int = 300
    # The conversation's stored rolling summary of turns folded earlier (by
    # summary.build_summary or a model). It is carried into the summary layer,
    # with the turns that left the window since, in the same token budget.
    rolling_summary: str | None = None
    # Role of the data messages (canvas block, summary). "user" keeps data
    # from outranking our own system rules.
    context_role: Literal["user", "system"] = "user"
    # Turns already folded into `rolling_summary` (oldest first, before
    # `messages`): never in the window or re-summarized, but searched by the
    # recall layer like every other turn outside the window.
    archived_messages: tuple[MessageData, ...] = ()
    # Recall past turns that answer the question (strategy "canvas").
    recall_history: bool = True
    # Rewrite values retired by subject in the history (value_ledger/; strategy "canvas").
    retire_values: bool = True
    # Reference time (ISO 8601) for priority decay; None = the newest
    # updated_at on the canvas, so the core stays deterministic.
    now: str | None = None
    # Optional embeddings (embeddings.EmbeddingInputs-like plain data):
    # .question (vector), .nodes {node id: vector}, .messages {message id: vector}.
    embeddings: Any = None

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {self.strategy!r}")
        if self.role not in ROLE_LEVEL:
            raise ValueError(f"unknown role {self.role!r}")
        for name in ("messages", "nodes", "edges", "archived_messages"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))


@dataclass(frozen=True, kw_only=True, slots=True)
class EmbeddingInputs:
    """Vectors from an embeddings endpoint, as plain data (the core never calls a model)."""

    question: tuple[float, ...]
    nodes: dict[str, tuple[float, ...]] = field(default_factory=dict)
    messages: dict[str, tuple[float, ...]] = field(default_factory=dict)


@dataclass(kw_only=True, slots=True)
class IncludedNode:
    node_id: str
    handle: str
    rank: int
    reason: str
    tokens: int
    effective_distance: float | None = None
    match_score: float | None = None
    placeholder: bool = False


@dataclass(kw_only=True, slots=True)
class ExcludedNode:
    node_id: str
    reason: str  # superseded | archived | not_visible | over_budget | out_of_range
    detail: str = ""


@dataclass(kw_only=True, slots=True)
class Truncation:
    layer: str
    item_id: str
    original_tokens: int
    kept_tokens: int


@dataclass(kw_only=True)
class CompileReport:
    strategy: str
    budget: dict[str, int]
    layer_tokens: dict[str, int] = field(default_factory=dict)
    total_tokens: int = 0
    included_nodes: list[IncludedNode] = field(default_factory=list)
    excluded_nodes: list[ExcludedNode] = field(default_factory=list)
    excluded_counts: dict[str, int] = field(default_factory=dict)
    handles: dict[str, str] = field(default_factory=dict)
    truncations: list[Truncation] = field(default_factory=list)
    included_message_ids: list[str] = field(default_factory=list)
    recalled_message_ids: list[str] = field(default_factory=list)
    dropped_message_ids: list[str] = field(default_factory=list)
    summarized_message_count: int = 0
    summary_dropped_superseded: int = 0
    redactions: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class CompiledContext:
    messages: list[dict[str, Any]]
    report: CompileReport
