// The real-time sync engine for one canvas (docs/protocol.md).
//
// It keeps the confirmed server document at revision R plus a queue of
// pending ops. What the UI shows is the server document with every pending op
// applied on top, recomputed after each server change (a rebase). Ops are
// idempotent on the server by client_op_id, so after a reconnect every
// unacknowledged op is simply sent again in order.
//
// The parts: connection.ts (socket lifecycle, with reconnect.ts for the backoff),
// pendingQueue.ts (queue and rebase), sendPacer.ts (pace of sending), catchUp.ts
// (revision gaps), offlineQueue.ts (the queue across page loads), presence.ts.
// This class ties them together and is what the app imports.

import type { CanvasNode, ChangeEvent, Op, PresenceActivity, PresenceCursor, PresenceViewport, Role, Snapshot, UserRef } from '../api/types';
import { applyChanges, docFromLists, EMPTY_DOC, type ChangeSideEffects, type Doc } from './apply';
import { perfMark } from '../lib/perfMarks';
import i18n from 'i18next';
import { socketErrorText } from '../i18n/errors';
import { GapBuffer } from './catchUp';
import { Connection } from './connection';
import { engineSettings, type EngineOptions, type EngineSettings } from './engineOptions';
import type { CanvasInfo, EngineState, Notice, PendingOp, PresencePeer, ServerFrame, WireFrame } from './engineTypes';
import { randomId } from './ids';
import { Listeners } from './listeners';
import { OfflineQueue } from './offlineQueue';
import { PendingQueue } from './pendingQueue';
import { PeerStore, PresenceSender } from './presence';
import { SendPacer } from './sendPacer';
import { Timer } from './timer';
import { isServerFrame, type AckFrame, type ErrorFrame, type PresenceFrame, type RejectFrame, type WelcomeFrame } from './wireFrames';

export type {
  CanvasInfo,
  ConnectionStatus,
  EngineState,
  Notice,
  NoticeKind,
  PendingOp,
  PendingStore,
  PresencePeer,
  ServerFrame,
  SocketFactory,
  SocketLike,
  StoredOp,
  WireFrame,
} from './engineTypes';
export type { EngineOptions } from './engineOptions';
export { newEntityId } from './ids';

const byteLength = (s: string) => new TextEncoder().encode(s).length;

export class SyncEngine {
  readonly sessionId: string;
  private readonly opts: EngineSettings;
  private readonly conn: Connection;
  private started = false;

  // sync
  private server: Doc = EMPTY_DOC;
  private revision: number | null = null;
  private synced = false;
  private awaitingSync = false;
  private readonly gaps: GapBuffer;
  private readonly queue: PendingQueue;

  // sending: ops leave strictly in queue order, paced by a token bucket, and
  // pause after RATE_LIMITED until the server's retry_after_ms has passed.
  private readonly pacer: SendPacer;
  private readonly pumpTimer = new Timer();
  private readonly offline: OfflineQueue;

  // presence
  private readonly peers = new PeerStore();
  private readonly presence: PresenceSender;

  // session info
  private role: Role | null = null;
  private user: UserRef | null = null;
  private canvas: CanvasInfo | null = null;
  private connectionId: string | null = null;

  private state: EngineState;
  private readonly listeners = new Listeners();
  private readonly noticeListeners = new Listeners<[Notice]>();
  private readonly frameListeners = new Listeners<[ServerFrame]>();

  constructor(options: EngineOptions) {
    this.sessionId = options.sessionId ?? randomId().slice(0, 8);
    this.opts = engineSettings(options);
    this.conn = new Connection(this.opts, {
      helloFrame: () => ({ type: 'hello', last_revision: this.revision }),
      greeted: () => {
        this.awaitingSync = true;
        // Resend everything not yet committed, in order, with the same ids.
        this.queue.markAllUnsent();
        this.pump();
      },
      message: (msg) => this.handleMessage(msg),
      socketGone: () => this.socketGone(),
      changed: () => this.emit(),
      notice: (n) => this.notice(n),
    });
    this.gaps = new GapBuffer(this.opts.catchUpTimeoutMs, this.opts.now);
    this.queue = new PendingQueue(this.sessionId);
    this.pacer = new SendPacer(this.opts.opsPerSecond);
    this.offline = new OfflineQueue(options.pendingStore ?? null);
    this.presence = new PresenceSender(this.opts.presenceIntervalMs, this.opts.now, {
      canSend: () => this.conn.isOpen(),
      socketOpen: () => this.conn.isWritable(),
      sendRaw: (text) => this.conn.socket!.send(text),
    });
    this.state = this.buildState();
  }

  // ------------------------------------------------------------ store API

  subscribe = (listener: () => void): (() => void) => this.listeners.add(listener);

  getSnapshot = (): EngineState => this.state;

  /** the other connections' presence (a new array only when it changed) */
  getPeers = (): readonly PresencePeer[] => this.peers.get();

  subscribePeers = (listener: () => void): (() => void) => this.peers.subscribe(listener);

  onNotice(listener: (n: Notice) => void): () => void {
    return this.noticeListeners.add(listener);
  }

  private emit() {
    this.state = this.buildState();
    this.listeners.call();
  }

  private notice(n: Notice) {
    this.noticeListeners.call(n);
  }

  /**
   * Frames the engine does not handle itself (chat.*, context.preview,
   * agent.*, and `error` frames answering a request that carried a
   * request_id) go to these listeners. The engine only transports them.
   */
  onFrame(listener: (msg: ServerFrame) => void): () => void {
    return this.frameListeners.add(listener);
  }

  private dispatchFrame(msg: ServerFrame) {
    for (const l of this.frameListeners.all()) {
      try {
        l(msg);
      } catch (err) {
        // A broken listener must not stop the sync engine.
        console.error('frame listener failed', err);
      }
    }
  }

  /**
   * Send a non-op frame (chat.send, chat.stop, context.preview…) on the open
   * socket. Nothing is queued: returns false when not connected (after hello),
   * so the caller can tell the user. Frames over the size limit are refused.
   */
  send(frame: { type: string; [key: string]: unknown }): boolean {
    if (!this.conn.isOpen()) return false;
    if (frame.type === 'op' || frame.type === 'hello' || frame.type === 'catch_up') return false;
    const text = JSON.stringify(frame);
    if (byteLength(text) > this.opts.maxFrameBytes) return false;
    try {
      this.conn.socket!.send(text);
      return true;
    } catch {
      return false;
    }
  }

  private buildState(): EngineState {
    const { doc, pendingIds } = this.queue.view(this.server, this.user);
    return {
      status: this.conn.status,
      revision: this.revision,
      synced: this.synced,
      doc,
      server: this.server,
      pending: [...this.queue.ops],
      pendingIds,
      role: this.role,
      user: this.user,
      canvas: this.canvas,
      connectionId: this.connectionId,
      revoked: this.conn.revoked,
      forcedOffline: this.conn.forcedOffline,
      nextRetryAt: this.conn.nextRetryAt,
    };
  }

  // ------------------------------------------------------------ lifecycle

  start(): void {
    if (this.started) return;
    this.started = true;
    this.offline.load(() => this.adoptRestored());
    this.conn.connect();
  }

  /** Put the ops of an earlier page load in front of the queue once we know who we are. */
  private adoptRestored() {
    if (this.offline.restoring || !this.user) return;
    const restored = this.offline.takeFor(this.user);
    if (restored.length > 0) this.queue.prependRestored(restored);
    this.persist();
    this.pump();
    this.emit();
  }

  /** True while some op has not been acknowledged by the server (the page warns before unload). */
  hasUnsentOps(): boolean {
    return this.queue.hasUnacknowledged() || this.offline.hasRestoredOps();
  }

  private persist() {
    this.offline.save(this.user, () => this.queue.unacknowledged());
  }

  stop(): void {
    this.conn.stop();
    this.presence.stop();
    this.gaps.settle();
    this.pumpTimer.clear();
    this.listeners.clear();
    this.noticeListeners.clear();
    this.frameListeners.clear();
  }

  /** Close the socket and stay offline until goOnline() (used by tests and the UI). */
  goOffline(): void {
    this.conn.goOffline();
  }

  goOnline(): void {
    this.conn.goOnline();
  }

  /** The browser says the network is gone: stop trusting the socket now instead of at the next heartbeat. */
  connectionLost(): void {
    this.conn.connectionLost();
  }

  /** Skip the backoff wait (e.g. the browser came back online). */
  reconnectNow(): void {
    this.conn.reconnectNow();
  }

  /** The socket was dropped: nothing is on the wire any more, and nobody's presence is known. */
  private socketGone() {
    this.awaitingSync = false;
    this.gaps.settle();
    this.pumpTimer.clear();
    this.peers.clear();
    this.queue.markAllUnsent();
  }

  /**
   * Send the unsent ops in queue order. Never skips one: a later op (an edge
   * to a node being created, a second move) must not overtake an earlier one.
   */
  private pump() {
    if (!this.conn.isOpen() || this.offline.restoring || (this.offline.holdsRestored && !this.user)) return;
    const now = this.opts.now();
    const held = this.pacer.heldFor(now);
    if (held > 0) {
      this.schedulePump(held);
      return;
    }
    this.pacer.refill(now);
    let inFlight = this.queue.inFlight();
    for (const p of this.queue.ops) {
      if (p.ackedRevision !== null || p.sent) continue;
      if (inFlight >= this.opts.maxInFlight) return; // the next answer pumps again
      const wait = this.pacer.waitForToken();
      if (wait > 0) {
        this.schedulePump(wait);
        return;
      }
      if (!this.conn.sendFrame({ type: 'op', client_op_id: p.clientOpId, op: p.op })) return;
      this.pacer.take();
      p.sent = true;
      inFlight++;
    }
  }

  private schedulePump(delay: number) {
    if (this.pumpTimer.active) return;
    this.pumpTimer.once(Math.max(1, delay), () => this.pump());
  }

  // ------------------------------------------------------------ ops

  /** Queue an op, show it optimistically and send it when possible. Returns its client_op_id. */
  submit(op: Op): string {
    const clientOpId = this.queue.nextClientOpId();
    const frame = JSON.stringify({ type: 'op', client_op_id: clientOpId, op });
    if (byteLength(frame) > this.opts.maxFrameBytes) {
      // The server would close the socket (1009) and the resend would loop.
      this.notice({
        kind: 'too-large',
        message: i18n.t('sync:tooLarge'),
        clientOpId,
        op,
      });
      return clientOpId;
    }
    const p: PendingOp = { clientOpId, op, ackedRevision: null, retries: 0 };
    this.queue.push(p);
    this.persist();
    this.pump();
    this.emit();
    return clientOpId;
  }

  // ------------------------------------------------------------ presence

  setPresence(viewport: PresenceViewport, cursor: PresenceCursor | null): void {
    this.presence.setPresence(viewport, cursor);
  }

  /** Announce which node I am editing / dragging; sent with the next presence frame (same throttle). */
  setActivity(activity: Partial<PresenceActivity>): void {
    this.presence.setActivity(activity);
  }

  // ------------------------------------------------------------ incoming

  /** Handle one decoded server frame (public for tests). */
  handleMessage(msg: WireFrame): void {
    switch (msg.type) {
      case 'welcome':
        return this.onWelcome(msg as WelcomeFrame);
      case 'snapshot':
        return this.onSnapshot(msg as unknown as Snapshot & { type: 'snapshot' });
      case 'changes':
        return this.onChanges(msg as { events?: ChangeEvent[] });
      case 'change':
        this.onChange(msg as unknown as ChangeEvent);
        this.afterChanges();
        this.emit();
        return;
      case 'ack':
        return this.onAck(msg as unknown as AckFrame);
      case 'reject':
        return this.onReject(msg as unknown as RejectFrame);
      case 'resync':
        return this.onResync();
      case 'presence':
        return this.peers.update(msg as PresenceFrame, this.connectionId, this.opts.now);
      case 'presence_leave':
        return this.peers.remove(String(msg.connection_id));
      case 'pong':
        return;
      case 'error': {
        const err = msg as ErrorFrame;
        if (err.request_id != null) {
          this.dispatchFrame(msg as ServerFrame);
          return;
        }
        this.notice({
          kind: 'error',
          message: socketErrorText('error', err.error?.code, err.error?.message),
          code: err.error?.code,
          field: err.error?.field ?? null,
        });
        return;
      }
      default:
        if (isServerFrame(msg)) this.dispatchFrame(msg);
        return;
    }
  }

  private onWelcome(msg: WelcomeFrame) {
    this.role = msg.role ?? this.role;
    this.user = msg.user ?? this.user;
    this.canvas = msg.canvas ? { ...(this.canvas ?? {}), ...msg.canvas } : this.canvas;
    this.connectionId = msg.connection_id != null ? String(msg.connection_id) : null;
    this.conn.welcomed();
    if (this.revision !== null && msg.canvas && msg.canvas.revision === this.revision) {
      // Already up to date; the server may still send an empty `changes`.
      this.awaitingSync = false;
    }
    this.presence.flush();
    if (this.offline.holdsRestored || this.offline.enabled) this.adoptRestored();
    this.emit();
  }

  private onSnapshot(msg: Snapshot & { type: 'snapshot' }) {
    this.server = docFromLists(msg.nodes ?? [], msg.edges ?? []);
    perfMark('snapshot-store-built');
    this.revision = msg.revision;
    this.synced = true;
    this.awaitingSync = false;
    this.gaps.settle();
    this.afterChanges();
    this.emit();
  }

  private onChanges(msg: { events?: ChangeEvent[] }) {
    this.awaitingSync = false;
    this.gaps.settle();
    for (const ev of msg.events ?? []) this.onChange({ ...ev, type: 'change' });
    this.afterChanges();
    this.emit();
  }

  /** Route one change event: ignore old ones, apply the next, buffer gaps. */
  private onChange(ev: ChangeEvent) {
    if (typeof ev.revision !== 'number') return;
    if (this.revision === null) {
      this.gaps.hold(ev);
      return;
    }
    if (ev.revision <= this.revision) {
      this.markCommitted(ev);
      return;
    }
    if (ev.revision === this.revision + 1) {
      this.applyEvent(ev);
      return;
    }
    this.markCommitted(ev);
    this.gaps.hold(ev);
  }

  private markCommitted(ev: ChangeEvent) {
    if (!ev.client_op_id) return;
    if (ev.actor?.user && this.user && ev.actor.user.id !== this.user.id) return;
    const p = this.queue.find(ev.client_op_id);
    if (p && p.ackedRevision === null) this.committed(p, ev.revision);
  }

  /** The server committed `p` (its ack or its change event, whichever came first). */
  private committed(p: PendingOp, revision: number) {
    p.ackedRevision = revision;
    p.sent = false;
    this.pacer.recover();
    this.queue.replayIfOvertaken(p);
    this.persist();
    this.schedulePump(0);
  }

  private applyEvent(ev: ChangeEvent) {
    const effects: ChangeSideEffects = {};
    this.server = applyChanges(this.server, ev.changes ?? [], effects);
    this.revision = ev.revision;
    this.markCommitted(ev);
    if (effects.canvas && this.canvas) this.canvas = { ...this.canvas, ...effects.canvas };
    else if (effects.canvas) this.canvas = { id: '', name: '', ...effects.canvas } as CanvasInfo;
    for (const m of effects.members ?? []) {
      if (this.user && m.user.id === this.user.id && m.role) this.role = m.role as Role;
    }
  }

  /** Drain the gap buffer, drop committed pending ops, request missing revisions. */
  private afterChanges() {
    if (this.revision !== null) {
      this.gaps.dropUpTo(this.revision);
      let next = this.gaps.takeNext(this.revision);
      while (next) {
        this.applyEvent(next);
        next = this.gaps.takeNext(this.revision);
      }
    }
    const r = this.revision;
    if (r !== null && this.queue.dropConfirmed(r)) this.persist();
    if (this.gaps.size > 0 || this.queue.waitsForRevision()) this.requestCatchUp();
    else this.gaps.settle();
  }

  private requestCatchUp() {
    if (this.revision === null || this.awaitingSync || !this.conn.isOpen()) return;
    this.gaps.request(
      this.revision,
      (frame) => this.conn.sendFrame(frame),
      () => {
        this.afterChanges();
        this.emit();
      },
    );
  }

  private onAck(msg: AckFrame) {
    const p = this.queue.find(msg.client_op_id);
    if (p && p.ackedRevision === null) this.committed(p, msg.revision);
    if (!msg.duplicate && typeof msg.revision === 'number') {
      // The ack carries the same changes as the change event for its revision.
      this.onChange({
        type: 'change',
        revision: msg.revision,
        client_op_id: msg.client_op_id,
        changes: msg.changes ?? [],
        actor: this.user ? { kind: 'user', user: this.user } : undefined,
      });
    }
    this.afterChanges();
    this.emit();
  }

  private onReject(msg: RejectFrame) {
    const idx = this.queue.indexOf(msg.client_op_id);
    const p = idx >= 0 ? this.queue.ops[idx] : undefined;
    const code = msg.error?.code;
    if (p && code === 'RATE_LIMITED') {
      // Nothing was applied. Pause, then resend from this op on, in order; never drop it.
      p.retries++;
      p.sent = false;
      const hinted = Number(msg.error?.retry_after_ms);
      const pause = Math.min(this.opts.maxBackoffMs, Number.isFinite(hinted) && hinted > 0 ? hinted : this.opts.rateLimitPauseMs);
      this.pacer.throttle(this.opts.now(), pause);
      this.pumpTimer.clear();
      this.schedulePump(pause);
      this.emit();
      return;
    }
    if (p && code === 'NOT_FOUND' && (p.orderRetries ?? 0) < 2 && this.queue.waitsBehindEarlier(p)) {
      // e.g. an edge whose node.create was rate-limited: send it again after that op.
      p.orderRetries = (p.orderRetries ?? 0) + 1;
      p.sent = false;
      this.pump();
      return;
    }
    if (idx >= 0) {
      this.queue.removeAt(idx);
      this.persist();
      this.schedulePump(0);
    }
    this.notice({
      kind: 'reject',
      message: socketErrorText('reject', code, msg.error?.message),
      code,
      field: msg.error?.field ?? null,
      clientOpId: msg.client_op_id,
      op: p?.op,
      current: msg.error?.current ?? undefined,
    });
    this.emit();
  }

  private onResync() {
    // Keep showing the old document until the new snapshot replaces it, but
    // stop applying changes on top of it.
    this.revision = null;
    this.gaps.clear();
    this.gaps.settle();
    if (this.conn.sendFrame({ type: 'hello', last_revision: null })) this.awaitingSync = true;
    this.emit();
  }

  // ------------------------------------------------------------ helpers for UI / tests

  getNode(id: string): CanvasNode | undefined {
    return this.state.doc.nodes.get(id);
  }

  /** A plain, serialisable view of the state (window.__canvasweb.getState). */
  debugState() {
    const s = this.state;
    return {
      status: s.status,
      revision: s.revision,
      synced: s.synced,
      role: s.role,
      user: s.user,
      canvas: s.canvas,
      connectionId: s.connectionId,
      nodes: [...s.doc.nodes.values()],
      edges: [...s.doc.edges.values()],
      server: { nodes: [...s.server.nodes.values()], edges: [...s.server.edges.values()] },
      pending: s.pending.map((p) => ({ client_op_id: p.clientOpId, op: p.op, acked_revision: p.ackedRevision })),
      peers: this.peers.get().map((p) => ({ ...p })),
    };
  }
}
