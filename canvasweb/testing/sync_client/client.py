"""A faithful Python implementation of the CLIENT rules of docs/protocol.md.

`SyncClient` holds what a client knows: the confirmed server state (nodes and
edges as the server last described them, filtered for this client's role), the
revision `R` it has applied, the ops it has sent but not yet seen answered
(`pending`, keyed by client_op_id), and change events that arrived ahead of a
gap (`buffer`). It has no I/O of its own: a transport (anything with
`send(frame: dict)`) carries frames out, and whoever owns the socket calls
`handle(frame)` for each frame in, `attach()` when a socket opens and
`detach()` when it closes. So the same rules run against the simulated
in-process server of the convergence fuzz (`canvasweb.testing.sim`) and against
real WebSockets (`WebSocketRunner` in runners.py).

The rules (protocol.md "Revisions", "ack", "resync"):

- `change` with revision <= R: a duplicate, ignored; == R + 1: applied; > R + 1:
  kept aside, and a `catch_up` with `since: R` asks for the missed revisions.
- `changes` (answer to hello/catch_up, or pushed by the server's sync check)
  and `snapshot` are applied by the same rules; a snapshot replaces the state.
- `ack`: the op committed at `revision`. A non-duplicate ack carries the same
  (filtered) changes as the change event of that revision, so it is applied as
  that event (the web client does the same). A duplicate ack only confirms.
- `reject`: the op changed nothing. RATE_LIMITED ops stay pending and are
  resent later; anything else is dropped from pending.
- `resync`: throw the state away and send `hello` with `last_revision: null`.
- a `removed` entity is dropped; a removed or deleted node takes the edges that
  touch it along (the server only lists edges it deleted).
- after every (re)connect: `hello` with the last applied revision, then every
  pending op again, in order, with the same client_op_id (resends are
  idempotent on the server).
- an ack or welcome can reveal a revision > R that no change event brought (a
  lost broadcast); `tick()` then sends `catch_up` once the event has had a
  moment to arrive.

Every protocol surprise (an unknown frame, an INTERNAL error, two acks with
different revisions for one client_op_id) is recorded in `anomalies`, so tests
can assert there were none.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .documents import apply_entity_change, dangling_edges

TRANSIENT_REJECTS = frozenset({"RATE_LIMITED"})


class Transport(Protocol):
    def send(self, frame: dict) -> None:  # pragma: no cover - a protocol
        """Queue one frame for the server (never blocks; frames sent on a dead socket are lost)."""


@dataclass
class AckRecord:
    revision: int
    duplicate: bool
    changes: list


class SyncClient:
    def __init__(
        self,
        name: str,
        *,
        op_id_prefix: str | None = None,
        ack_as_change: bool = True,
        clock: Callable[[], float] = time.monotonic,
        lag_grace: float = 1.0,
        rate_limit_retry: float = 0.25,
    ):
        self.name = name
        self.op_id_prefix = op_id_prefix or name
        self.ack_as_change = ack_as_change
        self.clock = clock
        self.lag_grace = lag_grace
        self.rate_limit_retry = rate_limit_retry

        # confirmed state
        self.nodes: dict[str, dict] = {}
        self.edges: dict[str, dict] = {}
        self.canvas: dict = {}
        self.revision: int | None = None
        self.role: str | None = None
        self.user: dict | None = None
        self.connection_id: str | None = None

        # ops
        self.pending: dict[str, dict] = {}  # client_op_id -> op, in submission order
        self.sent_ops: dict[str, dict] = {}  # every op ever submitted (for resends and reports)
        self.acked: dict[str, AckRecord] = {}
        self.rejected: dict[str, dict] = {}
        # A reject has no receipt: a copy of the op still in flight is a new attempt and may be applied
        # (say, the role changed in between); its ack is then the outcome (docs/protocol.md).
        self.unanswered_copies: Counter = Counter()
        self.rejected_with_copy_in_flight: set[str] = set()
        self.retry_at: dict[str, float] = {}  # RATE_LIMITED ops: when to resend
        self._counter = 0

        # sync machinery
        self.buffer: dict[int, dict] = {}
        self.known_revision = 0  # highest revision the server has told us exists
        self.lag_since: float | None = None  # when known_revision first ran ahead of R
        self.transport: Transport | None = None
        self.awaiting_state = False  # hello sent, snapshot/changes not yet received
        self.catch_up_sent_at: float | None = None
        self.closed_code: int | None = None
        self.revoked = False

        self.stats: Counter = Counter()
        self.anomalies: list[str] = []
        self.errors: list[dict] = []

    # --- connection lifecycle ----------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.transport is not None

    def attach(self, transport: Transport) -> None:
        """A socket opened: say hello with what we have, then resend everything pending."""
        self.transport = transport
        self.closed_code = None
        self.stats["connects"] += 1
        self._send({"type": "hello", "last_revision": self.revision})
        self.awaiting_state = True
        self.catch_up_sent_at = None
        for client_op_id in list(self.pending):
            self._send_op(client_op_id)
            self.stats["resends_after_connect"] += 1

    def detach(self, code: int | None = None) -> None:
        """The socket closed: everything in flight is lost; the state and pending ops stay."""
        self.transport = None
        self.closed_code = code
        self.awaiting_state = False
        self.catch_up_sent_at = None
        self.buffer.clear()
        self.unanswered_copies.clear()  # the answers to what was in flight are lost with the socket
        self.stats["disconnects"] += 1
        if code == 4403:
            self.revoked = True

    # --- local actions -------------------------------------------------------------------

    def next_op_id(self) -> str:
        self._counter += 1
        return f"{self.op_id_prefix}-{self._counter}"

    def submit(self, op: dict, client_op_id: str | None = None) -> str:
        """Queue an op; it is sent now if connected, else after the next connect (an offline edit)."""
        client_op_id = client_op_id or self.next_op_id()
        self.pending[client_op_id] = op
        self.sent_ops[client_op_id] = op
        self.stats["ops_submitted"] += 1
        if self.connected:
            self._send_op(client_op_id)
        else:
            self.stats["offline_ops"] += 1
        return client_op_id

    def resend(self, client_op_id: str) -> None:
        """Send an op again with the same id (a duplicate; the server must not apply it twice).

        Never an op the client has seen rejected: that id has no receipt, so a resend is a new attempt
        that may succeed now (say, after a role change) - a client does not do that.
        """
        if self.connected and client_op_id in self.sent_ops and client_op_id not in self.rejected:
            self.stats["duplicate_resends"] += 1
            self._send_copy(client_op_id, self.sent_ops[client_op_id])

    def tick(self, *, force: bool = False) -> None:
        """Timers: resend rate-limited ops, ask for revisions an ack or welcome revealed."""
        if not self.connected:
            return
        now = self.clock()
        for client_op_id, when in list(self.retry_at.items()):
            if force or now >= when:
                del self.retry_at[client_op_id]
                if client_op_id in self.pending:
                    self._send_op(client_op_id)
        if self.awaiting_state or self.revision is None:
            return
        if self.catch_up_sent_at is not None and (force or now - self.catch_up_sent_at > 5.0):
            self.catch_up_sent_at = None  # the answer is overdue: ask again
        lagging = self.known_revision > self.revision or bool(self.buffer)
        if not lagging:
            self.lag_since = None
            return
        if self.lag_since is None:
            self.lag_since = now
        if force or now - self.lag_since >= self.lag_grace:
            self._request_catch_up()

    # --- frames from the server ------------------------------------------------------------

    def handle(self, frame: Any) -> None:
        if isinstance(frame, (str, bytes)):
            try:
                frame = json.loads(frame)
            except ValueError:
                self.anomalies.append(f"{self.name}: server sent a frame that is not JSON: {frame[:200]!r}")
                return
        if not isinstance(frame, dict):
            self.anomalies.append(f"{self.name}: server sent a non-object frame: {frame!r:.200}")
            return
        kind = frame.get("type")
        self.stats[f"in:{kind}"] += 1
        handlers: dict[str | None, Callable[[dict], None]] = {
            "welcome": self._on_welcome,
            "snapshot": self._on_snapshot,
            "changes": self._on_changes,
            "change": self._on_change_frame,
            "ack": self._on_ack,
            "reject": self._on_reject,
            "resync": self._on_resync,
            "error": self._on_error,
        }
        handler = handlers.get(kind)
        if handler is not None:
            handler(frame)
        elif kind in ("presence", "presence_leave", "pong") or (
            isinstance(kind, str) and kind.startswith(("chat.", "context.", "agent."))
        ):
            return
        else:
            self.anomalies.append(f"{self.name}: unknown frame type {kind!r}")

    def _on_welcome(self, frame: dict) -> None:
        self.role = frame.get("role")
        self.user = frame.get("user")
        self.connection_id = frame.get("connection_id")
        canvas = frame.get("canvas") or {}
        self.canvas.update(canvas)
        if isinstance(canvas.get("revision"), int):
            self._saw_revision(canvas["revision"])

    def _on_snapshot(self, frame: dict) -> None:
        self.stats["snapshots"] += 1
        self.nodes = {n["id"]: n for n in frame.get("nodes", [])}
        self.edges = {e["id"]: e for e in frame.get("edges", [])}
        self.revision = frame["revision"]
        self._saw_revision(self.revision)
        self.awaiting_state = False
        self.catch_up_sent_at = None
        self._after_events()

    def _on_changes(self, frame: dict) -> None:
        self.stats["changes_frames"] += 1
        if self.revision is None:
            # A `changes` answer only makes sense on top of a state; buffer its events.
            for event in frame.get("events", []):
                self.buffer[event["revision"]] = event
            return
        self.awaiting_state = False
        self.catch_up_sent_at = None
        for event in frame.get("events", []):
            self._route_event(event)
        self._after_events()

    def _on_change_frame(self, frame: dict) -> None:
        self._route_event(frame)
        self._after_events()

    def _on_ack(self, frame: dict) -> None:
        client_op_id = frame.get("client_op_id")
        revision = frame.get("revision")
        if not isinstance(client_op_id, str):
            self.anomalies.append(f"{self.name}: ack without a client_op_id: {frame}")
            return
        if not isinstance(revision, int):
            self.anomalies.append(f"{self.name}: ack without a revision: {frame}")
            return
        self.stats["acks"] += 1
        self._answered(client_op_id)
        previous = self.acked.get(client_op_id)
        if previous is not None and previous.revision != revision:
            self.anomalies.append(
                f"{self.name}: {client_op_id} acked at revision {previous.revision} and again at {revision}"
            )
        if client_op_id in self.rejected_with_copy_in_flight:
            self.rejected_with_copy_in_flight.discard(client_op_id)
            self.rejected.pop(client_op_id, None)
            self.stats["rejects_overturned"] += 1
        elif client_op_id in self.rejected:
            self.anomalies.append(f"{self.name}: {client_op_id} was rejected and later acked")
        if frame.get("duplicate"):
            self.stats["duplicate_acks"] += 1
        if previous is None:
            self.acked[client_op_id] = AckRecord(
                revision=revision, duplicate=bool(frame.get("duplicate")), changes=frame.get("changes") or []
            )
        self.pending.pop(client_op_id, None)
        self.retry_at.pop(client_op_id, None)
        self._saw_revision(revision)
        if self.ack_as_change and not frame.get("duplicate"):
            # The ack carries exactly the (filtered) changes of the change event for its revision.
            self._route_event(
                {
                    "type": "change",
                    "revision": revision,
                    "client_op_id": client_op_id,
                    "changes": frame.get("changes") or [],
                }
            )
        self._after_events()

    def _on_reject(self, frame: dict) -> None:
        client_op_id = frame.get("client_op_id")
        error = frame.get("error") or {}
        code = error.get("code")
        self.stats[f"reject:{code}"] += 1
        copies_in_flight = self._answered(client_op_id) if isinstance(client_op_id, str) else 0
        if code == "INTERNAL":
            self.anomalies.append(f"{self.name}: INTERNAL reject for {client_op_id}: {error}")
        if client_op_id in self.acked:
            # A resend of an acked op may meet the rate limit before the server looks up its receipt.
            if code not in TRANSIENT_REJECTS:
                self.anomalies.append(f"{self.name}: {client_op_id} was acked and later rejected ({code})")
            return
        if code in TRANSIENT_REJECTS and client_op_id in self.pending:
            self.retry_at[client_op_id] = self.clock() + self.rate_limit_retry
            return
        if client_op_id in self.pending:
            self.pending.pop(client_op_id)
            self.rejected[client_op_id] = error
            if copies_in_flight:
                self.rejected_with_copy_in_flight.add(client_op_id)
        elif not copies_in_flight:
            self.rejected_with_copy_in_flight.discard(client_op_id)

    def _on_resync(self, frame: dict) -> None:
        self.stats["resyncs"] += 1
        self.revision = None
        self.buffer.clear()
        self.catch_up_sent_at = None
        if self.connected:
            self._send({"type": "hello", "last_revision": None})
            self.awaiting_state = True

    def _on_error(self, frame: dict) -> None:
        error = frame.get("error") or {}
        self.errors.append(error)
        if error.get("code") == "INTERNAL":
            self.anomalies.append(f"{self.name}: INTERNAL error frame: {error}")

    # --- applying events ------------------------------------------------------------------------

    def _route_event(self, event: dict) -> None:
        revision = event.get("revision")
        if not isinstance(revision, int):
            self.anomalies.append(f"{self.name}: change without a revision: {event}")
            return
        self._saw_revision(revision)
        if self.revision is None:
            self.buffer[revision] = event
            return
        if revision <= self.revision:
            self.stats["duplicate_events"] += 1
            return
        if revision == self.revision + 1:
            self._apply(event)
            return
        if revision not in self.buffer:
            self.stats["gap_events"] += 1
        self.buffer[revision] = event

    def _apply(self, event: dict) -> None:
        for change in event.get("changes") or []:
            entity = change.get("entity")
            if entity in ("node", "edge"):
                apply_entity_change(self.nodes, self.edges, change)
            elif entity == "canvas" and change.get("data"):
                self.canvas.update(
                    {k: v for k, v in change["data"].items() if k in ("id", "name", "revision")}
                )
            elif (
                entity == "member"
                and change.get("data")
                and self.user
                and change["data"].get("user", {}).get("id") == self.user.get("id")
            ):
                self.role = change["data"].get("role", self.role)
        self.revision = event["revision"]
        self.stats["events_applied"] += 1

    def _after_events(self) -> None:
        if self.revision is None:
            return
        for revision in [r for r in self.buffer if r <= self.revision]:
            del self.buffer[revision]
        while self.revision + 1 in self.buffer:
            self._apply(self.buffer.pop(self.revision + 1))
        if self.buffer:
            # A real gap: some revision between R and the buffered ones never arrived.
            self._request_catch_up()
        elif self.known_revision <= self.revision:
            self.lag_since = None

    def _request_catch_up(self) -> None:
        if not self.connected or self.awaiting_state or self.revision is None:
            return
        if self.catch_up_sent_at is not None:
            return
        self.stats["catch_ups"] += 1
        self.catch_up_sent_at = self.clock()
        self._send({"type": "catch_up", "since": self.revision})

    def _saw_revision(self, revision: int) -> None:
        if revision > self.known_revision:
            self.known_revision = revision

    # --- output -------------------------------------------------------------------------------

    def _send_op(self, client_op_id: str) -> None:
        self._send_copy(client_op_id, self.pending[client_op_id])

    def _send_copy(self, client_op_id: str, op: dict) -> None:
        if self.transport is not None:
            self.unanswered_copies[client_op_id] += 1
        self._send({"type": "op", "client_op_id": client_op_id, "op": op})

    def _answered(self, client_op_id: str) -> int:
        """One copy of the op answered; how many are still in flight."""
        if self.unanswered_copies[client_op_id] > 0:
            self.unanswered_copies[client_op_id] -= 1
        return self.unanswered_copies[client_op_id]

    def _send(self, frame: dict) -> None:
        if self.transport is not None:
            self.stats[f"out:{frame['type']}"] += 1
            self.transport.send(frame)

    # --- inspection -----------------------------------------------------------------------------

    def document(self) -> dict:
        return {"nodes": dict(self.nodes), "edges": dict(self.edges)}

    def dangling_edges(self) -> list[str]:
        return dangling_edges(self.nodes, self.edges)

    @property
    def settled(self) -> bool:
        """Nothing pending, nothing buffered, R at least what the server has told us."""
        return (
            self.connected
            and not self.awaiting_state
            and not self.pending
            and not self.buffer
            and self.revision is not None
            and self.revision >= self.known_revision
        )
