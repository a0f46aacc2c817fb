// The queue of ops not yet confirmed by the server, in the order they were made, and the rebase:
// the displayed document is the server document with every pending op applied on top.

import type { UserRef } from '../api/types';
import { applyOps, touchedIds, type Doc } from './apply';
import type { PendingOp, StoredOp } from './engineTypes';

/** Ops that only set fields, so sending them again restores their intent. */
const REPLAYABLE = new Set<string>(['node.update', 'node.move', 'node.archive', 'edge.update']);

export class PendingQueue {
  ops: PendingOp[] = [];
  private counter = 0;
  // The displayed document is only recomputed when the server document or
  // the pending queue changed (presence frames arrive far more often).
  private viewCache: { server: Doc; pending: PendingOp[]; doc: Doc; pendingIds: Set<string> } | null = null;

  constructor(private readonly sessionId: string) {}

  /** The next client_op_id of this session. */
  nextClientOpId(): string {
    return `${this.sessionId}-${++this.counter}`;
  }

  push(p: PendingOp): void {
    this.ops.push(p);
  }

  find(clientOpId: string): PendingOp | undefined {
    return this.ops.find((x) => x.clientOpId === clientOpId);
  }

  indexOf(clientOpId: string): number {
    return this.ops.findIndex((x) => x.clientOpId === clientOpId);
  }

  removeAt(idx: number): void {
    this.ops.splice(idx, 1);
  }

  /** Nothing is on the wire any more (new socket): everything unacknowledged goes out again. */
  markAllUnsent(): void {
    for (const p of this.ops) p.sent = false;
  }

  /** Put ops of an earlier page load in front of the queue (those not already in it). */
  prependRestored(stored: StoredOp[]): void {
    const known = new Set(this.ops.map((p) => p.clientOpId));
    const older = stored
      .filter((o) => !known.has(o.clientOpId))
      .map<PendingOp>((o) => ({ clientOpId: o.clientOpId, op: o.op, ackedRevision: null, retries: 0 }));
    this.ops = [...older, ...this.ops];
    this.markAllUnsent();
  }

  /** The ops still to be acknowledged, as the offline store keeps them. */
  unacknowledged(): StoredOp[] {
    return this.ops.filter((p) => p.ackedRevision === null).map((p) => ({ clientOpId: p.clientOpId, op: p.op }));
  }

  hasUnacknowledged(): boolean {
    return this.ops.some((p) => p.ackedRevision === null);
  }

  /** Sent on the current connection and not answered yet. */
  inFlight(): number {
    return this.ops.filter((p) => p.sent && p.ackedRevision === null).length;
  }

  /** Some op is committed at a revision the document has not reached yet. */
  waitsForRevision(): boolean {
    return this.ops.some((p) => p.ackedRevision !== null);
  }

  /** Drop the ops the server document at `revision` already contains; true when any went. */
  dropConfirmed(revision: number): boolean {
    const before = this.ops.length;
    this.ops = this.ops.filter((p) => p.ackedRevision === null || p.ackedRevision > revision);
    return this.ops.length !== before;
  }

  /**
   * An op committed while an earlier op touching the same node or edge waits
   * for its resend (RATE_LIMITED) will be overwritten by that older op. Send
   * its fields again right after it, so the newest intent wins as typed.
   */
  replayIfOvertaken(p: PendingOp): void {
    const idx = this.ops.indexOf(p);
    if (!REPLAYABLE.has(p.op.type)) return;
    const mine = touchedIds(p.op, new Set<string>());
    const overtaken = this.ops
      .slice(0, idx)
      .some((e) => e.ackedRevision === null && e.retries > 0 && [...touchedIds(e.op, new Set<string>())].some((id) => mine.has(id)));
    if (!overtaken) return;
    const copy: PendingOp = { clientOpId: this.nextClientOpId(), op: p.op, ackedRevision: null, retries: 0 };
    this.ops.splice(idx + 1, 0, copy);
  }

  /** An earlier op is still waiting to be (re)sent: this one may have failed only because of it. */
  waitsBehindEarlier(p: PendingOp): boolean {
    const idx = this.ops.indexOf(p);
    return this.ops.slice(0, idx).some((e) => e.ackedRevision === null && (e.retries > 0 || !e.sent));
  }

  /** The rebase: `server` with every pending op applied, and the ids those ops touch (cached). */
  view(server: Doc, user: UserRef | null): { doc: Doc; pendingIds: Set<string> } {
    const cache = this.viewCache;
    if (
      cache &&
      cache.server === server &&
      cache.pending.length === this.ops.length &&
      cache.pending.every((p, i) => p === this.ops[i])
    ) {
      return { doc: cache.doc, pendingIds: cache.pendingIds };
    }
    const pendingIds = new Set<string>();
    for (const p of this.ops) touchedIds(p.op, pendingIds);
    const doc = applyOps(
      server,
      this.ops.map((p) => ({ op: p.op, ctx: { user, clientOpId: p.clientOpId } })),
    );
    this.viewCache = { server, pending: [...this.ops], doc, pendingIds };
    return { doc, pendingIds };
  }
}
