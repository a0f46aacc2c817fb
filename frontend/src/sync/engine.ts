// The real-time sync engine for one canvas (docs/protocol.md).
//
// It keeps the confirmed server document at revision R plus a queue of
// pending ops. What the UI shows is the server document with every pending op
// applied on top, recomputed after each server change (a rebase). Ops are
// idempotent on the server by client_op_id, so after a reconnect every
// unacknowledged op is simply sent again in order.
//
// The parts: connection.ts (socket lifecycle, with reconnect.ts for the backoff),
// confirmedDoc.ts (the server document, with catchUp.ts for revision gaps),
// pendingQueue.ts (queue and rebase), opPump.ts with sendPacer.ts (sending),
// offlineQueue.ts (the queue across page loads), presence.ts.
// This class ties them together and is what the app imports.

import type { CanvasNode, ChangeEvent, Op, PresenceActivity, PresenceCursor, PresenceViewport, Role, Snapshot, UserRef } from '../api/types';
import type { ChangeSideEffects } from './apply';
import i18n from 'i18next';
import { socketErrorText } from '../i18n/errors';
import { ConfirmedDoc } from './confirmedDoc';
import { Connection } from './connection';
import { engineSettings, type EngineOptions, type EngineSettings } from './engineOptions';
import type { CanvasInfo, EngineState, Notice, PendingOp, PresencePeer, ServerFrame, WireFrame } from './engineTypes';
import { randomId } from './ids';
import { Listeners } from './listeners';
import { OfflineQueue } from './offlineQueue';
import { PendingQueue } from './pendingQueue';
import { PeerStore, PresenceSender } from './presence';
import { rejectOutcome } from './rejects';
import { OpPump } from './opPump';
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
  private readonly confirmed: ConfirmedDoc;
  private awaitingSync = false;
  private readonly queue: PendingQueue;

  private readonly sender: OpPump;
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
  private readonly changeListeners = new Listeners<[ChangeEvent]>();

  constructor(options: EngineOptions) {
    this.sessionId = options.sessionId ?? randomId().slice(0, 8);
    this.opts = engineSettings(options);
    this.conn = new Connection(this.opts, {
      helloFrame: () => ({ type: 'hello', last_revision: this.confirmed.revision }),
      greeted: () => {
        this.awaitingSync = true;
        // Resend everything not yet committed, in order, with the same ids.
        this.queue.markAllUnsent();
        this.sender.pump();
      },
      message: (msg) => this.handleMessage(msg),
      socketGone: () => this.socketGone(),
      changed: () => this.emit(),
      notice: (n) => this.notice(n),
    });
    this.confirmed = new ConfirmedDoc(this.opts.catchUpTimeoutMs, this.opts.now, {
      committed: (ev) => this.markCommitted(ev),
      sideEffects: (effects) => this.adoptSideEffects(effects),
    });
    this.queue = new PendingQueue(this.sessionId);
    this.sender = new OpPump(this.opts.opsPerSecond, this.opts.maxInFlight, this.opts.now, this.queue, {
      ready: () => this.conn.isOpen() && !this.offline.restoring && !(this.offline.holdsRestored && !this.user),
      send: (p) => this.conn.sendFrame({ type: 'op', client_op_id: p.clientOpId, op: p.op }),
    });
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

  /**
   * Every change event as it arrives (change, catch-up, my own acks), before it is applied: the
   * document still holds what it replaces. A revision can come twice (ack and change).
   */
  onChangeEvent(listener: (ev: ChangeEvent) => void): () => void {
    return this.changeListeners.add(listener);
  }

  private receive(ev: ChangeEvent) {
    this.changeListeners.call(ev);
    this.confirmed.receive(ev);
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
    const server = this.confirmed.doc;
    const { doc, pendingIds } = this.queue.view(server, this.user);
    return {
      status: this.conn.status,
      revision: this.confirmed.revision,
      synced: this.confirmed.synced,
      doc,
      server,
      pending: [...this.queue.ops],
      pendingIds,
      role: this.role,
      user: this.user,
      canvas: this.canvas,
      connectionId: this.connectionId,
      revoked: this.conn.revoked,
      forcedOffline: this.conn.forcedOffline,
      networkDown: this.conn.networkDown,
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
    this.sender.pump();
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
    this.confirmed.gaps.settle();
    this.sender.cancel();
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
    this.confirmed.gaps.settle();
    this.sender.cancel();
    this.peers.clear();
    this.queue.markAllUnsent();
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
    this.sender.pump();
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
        this.receive(msg as unknown as ChangeEvent);
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
    if (this.confirmed.revision !== null && msg.canvas && msg.canvas.revision === this.confirmed.revision) {
      // Already up to date; the server may still send an empty `changes`.
      this.awaitingSync = false;
    }
    this.presence.flush();
    if (this.offline.holdsRestored || this.offline.enabled) this.adoptRestored();
    this.emit();
  }

  private onSnapshot(msg: Snapshot & { type: 'snapshot' }) {
    this.confirmed.loadSnapshot(msg.nodes ?? [], msg.edges ?? [], msg.revision);
    this.awaitingSync = false;
    this.afterChanges();
    this.emit();
  }

  private onChanges(msg: { events?: ChangeEvent[] }) {
    this.awaitingSync = false;
    this.confirmed.gaps.settle();
    for (const ev of msg.events ?? []) this.receive({ ...ev, type: 'change' });
    this.afterChanges();
    this.emit();
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
    this.queue.replayIfOvertaken(p);
    this.persist();
    this.sender.committed();
  }

  /** Canvas fields and my role as an applied change left them. */
  private adoptSideEffects(effects: ChangeSideEffects) {
    if (effects.canvas && this.canvas) this.canvas = { ...this.canvas, ...effects.canvas };
    else if (effects.canvas) this.canvas = { id: '', name: '', ...effects.canvas } as CanvasInfo;
    for (const m of effects.members ?? []) {
      if (this.user && m.user.id === this.user.id && m.role) this.role = m.role as Role;
    }
  }

  /** Drain the gap buffer, drop committed pending ops, request missing revisions. */
  private afterChanges() {
    this.confirmed.drain();
    const r = this.confirmed.revision;
    if (r !== null && this.queue.dropConfirmed(r)) this.persist();
    if (this.confirmed.gaps.size > 0 || this.queue.waitsForRevision()) this.requestCatchUp();
    else this.confirmed.gaps.settle();
  }

  private requestCatchUp() {
    const revision = this.confirmed.revision;
    if (revision === null || this.awaitingSync || !this.conn.isOpen()) return;
    this.confirmed.gaps.request(
      revision,
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
      this.receive({
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
    const outcome = rejectOutcome(p, msg.error, (op) => this.queue.waitsBehindEarlier(op), this.opts);
    if (p && outcome.kind === 'pause') {
      // Nothing was applied. Pause, then resend from this op on, in order; never drop it.
      p.retries++;
      p.sent = false;
      this.sender.rateLimited(outcome.pauseMs);
      this.emit();
      return;
    }
    if (p && outcome.kind === 'after-earlier') {
      p.orderRetries = (p.orderRetries ?? 0) + 1;
      p.sent = false;
      this.sender.pump();
      return;
    }
    if (idx >= 0) {
      this.queue.removeAt(idx);
      this.persist();
      this.sender.schedule(0);
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
    this.confirmed.forgetRevision();
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
