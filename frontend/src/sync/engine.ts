// The real-time sync engine for one canvas (docs/protocol.md).
//
// It keeps the confirmed server document at revision R plus a queue of
// pending ops. What the UI shows is the server document with every pending op
// applied on top, recomputed after each server change (a rebase). Ops are
// idempotent on the server by client_op_id, so after a reconnect every
// unacknowledged op is simply sent again in order.

import type {
  CanvasNode,
  ChangeEvent,
  EntityChange,
  Op,
  PresenceActivity,
  PresenceCursor,
  PresenceViewport,
  Role,
  Snapshot,
  UserRef,
} from '../api/types';
import { applyChanges, applyOps, docFromLists, EMPTY_DOC, touchedIds, type ChangeSideEffects, type Doc } from './apply';
import { perfMark } from '../lib/perfMarks';
import i18n from 'i18next';
import { socketErrorText } from '../i18n/errors';

/** frames longer than this (snapshots, big catch-ups) get User Timing marks around their parse */
const BIG_FRAME_CHARS = 100_000;

export type ConnectionStatus = 'connecting' | 'online' | 'reconnecting' | 'offline';

/** The subset of the browser WebSocket the engine uses (so tests can fake it). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

export interface PendingOp {
  clientOpId: string;
  op: Op;
  /** revision the server committed it at (ack arrived before we could apply it) */
  ackedRevision: number | null;
  /** rate-limit retries so far */
  retries: number;
  /** sent on the current connection and not answered yet */
  sent?: boolean;
  /** rejected (not RATE_LIMITED) while an earlier op waited for its resend: resent once more in order */
  orderRetries?: number;
}

/** An unacknowledged op as kept across page loads (see PendingStore). */
export interface StoredOp {
  clientOpId: string;
  op: Op;
}

/**
 * Where the unacknowledged ops survive a reload or a closed tab (IndexedDB in
 * the browser, see pendingStore.ts). `userId` guards against replaying one
 * user's edits under another login.
 */
export interface PendingStore {
  load(): Promise<{ userId: number | string | null; ops: StoredOp[] } | null>;
  save(state: { userId: number | string | null; ops: StoredOp[] }): void;
}

export interface PresencePeer {
  connectionId: string;
  user: UserRef;
  color: string;
  viewport: PresenceViewport | null;
  cursor: PresenceCursor | null;
  /** node this person has an editor open on */
  editing?: string | null;
  /** node this person is dragging, and where it is now */
  dragging?: PresenceActivity['dragging'];
  updatedAt: number;
}

export interface CanvasInfo {
  id: number | string;
  name: string;
  revision?: number;
  [key: string]: unknown;
}

/** A decoded server frame the engine passes through (see onFrame). */
export interface ServerFrame {
  type: string;
  [key: string]: unknown;
}

/** A decoded JSON object from the socket; its fields are checked where they are used. */
export type WireFrame = Record<string, unknown>;

/** The fields of a `welcome` frame the engine reads (unchecked wire data). */
interface WelcomeFrame {
  role?: Role | null;
  user?: UserRef | null;
  canvas?: CanvasInfo | null;
  connection_id?: string | number | null;
}

/** The fields of a `presence` frame the engine reads (unchecked wire data). */
interface PresenceFrame {
  connection_id?: string | number | null;
  user?: UserRef | null;
  color?: unknown;
  viewport?: PresenceViewport | null;
  cursor?: PresenceCursor | null;
  editing?: unknown;
  dragging?: PresenceActivity['dragging'];
}

/** An `ack` frame: the op with this client_op_id committed at `revision`. */
interface AckFrame {
  client_op_id: string;
  revision: number;
  duplicate?: boolean;
  changes?: EntityChange[];
}

/** A `reject` frame: the op with this client_op_id was not applied. */
interface RejectFrame {
  client_op_id: string;
  error?: { code?: string; message?: string; field?: string | null; retry_after_ms?: number; current?: CanvasNode };
}

/** An `error` frame; with a request_id it answers a request and goes to frame listeners. */
interface ErrorFrame {
  request_id?: unknown;
  error?: { code?: string; message?: string; field?: string | null } | null;
}

export type NoticeKind = 'reject' | 'error' | 'revoked' | 'too-large';

export interface Notice {
  kind: NoticeKind;
  message: string;
  code?: string;
  field?: string | null;
  clientOpId?: string;
  op?: Op;
  /** CONFLICT on a stale base_version: the node as the server has it now */
  current?: CanvasNode;
}

export interface EngineState {
  status: ConnectionStatus;
  /** confirmed server revision R (null before the first snapshot / after resync) */
  revision: number | null;
  /** a snapshot has been received at least once */
  synced: boolean;
  /** displayed document: server state + pending ops */
  doc: Doc;
  /** confirmed server document */
  server: Doc;
  pending: readonly PendingOp[];
  /** node/edge ids with unconfirmed local changes */
  pendingIds: ReadonlySet<string>;
  role: Role | null;
  user: UserRef | null;
  canvas: CanvasInfo | null;
  connectionId: string | null;
  /** membership revoked (close 4403): no reconnects */
  revoked: boolean;
  /** goOffline() was called */
  forcedOffline: boolean;
  /** when the next reconnect attempt is due (epoch ms) */
  nextRetryAt: number | null;
}

export interface EngineOptions {
  url: string;
  socketFactory?: SocketFactory;
  sessionId?: string;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  presenceIntervalMs?: number;
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
  catchUpTimeoutMs?: number;
  maxFrameBytes?: number;
  /** ops per second the client sends at most (stays under the server's WS_OPS_PER_SECOND) */
  opsPerSecond?: number;
  /** ops sent and not yet answered, at most (the server refuses more than 100 waiting) */
  maxInFlight?: number;
  /** fallback pause after RATE_LIMITED when the server sends no retry_after_ms */
  rateLimitPauseMs?: number;
  pendingStore?: PendingStore;
  random?: () => number;
  now?: () => number;
}

const WS_OPEN = 1;

/** Ops that only set fields, so sending them again restores their intent. */
const REPLAYABLE = new Set<string>(['node.update', 'node.move', 'node.archive', 'edge.update']);

/** A wire object with a string `type`: a frame the engine can pass to frame listeners. */
function isServerFrame(msg: WireFrame): msg is ServerFrame {
  return typeof msg.type === 'string';
}

function randomId(): string {
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  return 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, (ch) => {
    const r = (Math.random() * 16) | 0;
    return (ch === 'x' ? r : (r & 0x3) | 0x8).toString(16);
  });
}

/** A fresh UUID for client-created nodes and edges. */
export function newEntityId(): string {
  return randomId();
}

const byteLength = (s: string) => new TextEncoder().encode(s).length;

export class SyncEngine {
  readonly sessionId: string;
  private readonly opts: Required<Omit<EngineOptions, 'socketFactory' | 'sessionId' | 'pendingStore'>> & {
    socketFactory: SocketFactory;
  };
  private readonly store: PendingStore | null;

  // connection
  private socket: SocketLike | null = null;
  private generation = 0;
  private helloSent = false;
  private attempt = 0;
  private everConnected = false;
  private started = false;
  private stopped = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private lastMessageAt = 0;

  // sync
  private server: Doc = EMPTY_DOC;
  private revision: number | null = null;
  private synced = false;
  private awaitingSync = false;
  private buffered = new Map<number, ChangeEvent>();
  private catchUpSentAt: number | null = null;
  private catchUpTimer: ReturnType<typeof setTimeout> | null = null;
  private pending: PendingOp[] = [];
  private counter = 0;

  // sending: ops leave strictly in queue order, paced by a token bucket, and
  // pause after RATE_LIMITED until the server's retry_after_ms has passed.
  private sendTokens = 0;
  private sendTokensAt = 0;
  private holdUntil = 0;
  /** current pace: halved on RATE_LIMITED, recovers with every ack (up to opsPerSecond) */
  private sendRate = 0;
  private lastRateCutAt = -Infinity;
  private pumpTimer: ReturnType<typeof setTimeout> | null = null;
  /** ops restored from the store, held until welcome confirms the same user */
  private restored: { userId: number | string | null; ops: StoredOp[] } | null = null;
  private restoring = false;

  // presence
  // Presence is its own store (getPeers / subscribePeers): cursor frames arrive many times a second and
  // must not rebuild the engine state, which every canvas and chat component reads.
  private peers = new Map<string, PresencePeer>();
  private peersSnapshot: readonly PresencePeer[] = [];
  private peerListeners = new Set<() => void>();
  private presenceLatest: { viewport: PresenceViewport; cursor: PresenceCursor | null } | null = null;
  private presenceActivity: PresenceActivity = { editing: null, dragging: null };
  private presenceLastSentAt = -Infinity;
  private presenceLastPayload = '';
  private presenceTimer: ReturnType<typeof setTimeout> | null = null;

  // session info
  private role: Role | null = null;
  private user: UserRef | null = null;
  private canvas: CanvasInfo | null = null;
  private connectionId: string | null = null;
  private status: ConnectionStatus = 'connecting';
  private revoked = false;
  private forcedOffline = false;
  private nextRetryAt: number | null = null;

  private state: EngineState;
  private listeners = new Set<() => void>();
  private noticeListeners = new Set<(n: Notice) => void>();
  private frameListeners = new Set<(msg: ServerFrame) => void>();

  constructor(options: EngineOptions) {
    this.sessionId = options.sessionId ?? randomId().slice(0, 8);
    this.opts = {
      url: options.url,
      socketFactory: options.socketFactory ?? ((url: string) => new WebSocket(url) as unknown as SocketLike),
      initialBackoffMs: options.initialBackoffMs ?? 500,
      maxBackoffMs: options.maxBackoffMs ?? 10_000,
      presenceIntervalMs: options.presenceIntervalMs ?? 80,
      // A dead network is noticed within ~5 s: the server answers every ping.
      pingIntervalMs: options.pingIntervalMs ?? 2_000,
      idleTimeoutMs: options.idleTimeoutMs ?? 5_000,
      catchUpTimeoutMs: options.catchUpTimeoutMs ?? 5_000,
      maxFrameBytes: options.maxFrameBytes ?? 65_000,
      opsPerSecond: options.opsPerSecond ?? 40,
      maxInFlight: options.maxInFlight ?? 50,
      rateLimitPauseMs: options.rateLimitPauseMs ?? 250,
      random: options.random ?? Math.random,
      now: options.now ?? (() => Date.now()),
    };
    this.store = options.pendingStore ?? null;
    this.sendTokens = this.opts.opsPerSecond;
    this.sendRate = this.opts.opsPerSecond;
    this.state = this.buildState();
  }

  // ------------------------------------------------------------ store API

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): EngineState => this.state;

  /** the other connections' presence (a new array only when it changed) */
  getPeers = (): readonly PresencePeer[] => this.peersSnapshot;

  subscribePeers = (listener: () => void): (() => void) => {
    this.peerListeners.add(listener);
    return () => this.peerListeners.delete(listener);
  };

  private emitPeers() {
    this.peersSnapshot = [...this.peers.values()];
    for (const l of [...this.peerListeners]) l();
  }

  onNotice(listener: (n: Notice) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  private emit() {
    this.state = this.buildState();
    for (const l of [...this.listeners]) l();
  }

  private notice(n: Notice) {
    for (const l of [...this.noticeListeners]) l(n);
  }

  /**
   * Frames the engine does not handle itself (chat.*, context.preview,
   * agent.*, and `error` frames answering a request that carried a
   * request_id) go to these listeners. The engine only transports them.
   */
  onFrame(listener: (msg: ServerFrame) => void): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  private dispatchFrame(msg: ServerFrame) {
    for (const l of [...this.frameListeners]) {
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
    if (!this.isOpen()) return false;
    if (frame.type === 'op' || frame.type === 'hello' || frame.type === 'catch_up') return false;
    const text = JSON.stringify(frame);
    if (byteLength(text) > this.opts.maxFrameBytes) return false;
    try {
      this.socket!.send(text);
      return true;
    } catch {
      return false;
    }
  }

  // The displayed document is only recomputed when the server document or
  // the pending queue changed (presence frames arrive far more often).
  private viewCache: { server: Doc; pending: PendingOp[]; doc: Doc; pendingIds: Set<string> } | null = null;

  private buildState(): EngineState {
    const cache = this.viewCache;
    let doc: Doc;
    let pendingIds: Set<string>;
    if (
      cache &&
      cache.server === this.server &&
      cache.pending.length === this.pending.length &&
      cache.pending.every((p, i) => p === this.pending[i])
    ) {
      doc = cache.doc;
      pendingIds = cache.pendingIds;
    } else {
      pendingIds = new Set<string>();
      for (const p of this.pending) touchedIds(p.op, pendingIds);
      doc = applyOps(
        this.server,
        this.pending.map((p) => ({ op: p.op, ctx: { user: this.user, clientOpId: p.clientOpId } })),
      );
      this.viewCache = { server: this.server, pending: [...this.pending], doc, pendingIds };
    }
    return {
      status: this.status,
      revision: this.revision,
      synced: this.synced,
      doc,
      server: this.server,
      pending: [...this.pending],
      pendingIds,
      role: this.role,
      user: this.user,
      canvas: this.canvas,
      connectionId: this.connectionId,
      revoked: this.revoked,
      forcedOffline: this.forcedOffline,
      nextRetryAt: this.nextRetryAt,
    };
  }

  // ------------------------------------------------------------ lifecycle

  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.store) {
      this.restoring = true;
      this.store
        .load()
        .then((saved) => {
          if (saved && saved.ops.length > 0) this.restored = saved;
        })
        .catch(() => undefined)
        .finally(() => {
          this.restoring = false;
          this.adoptRestored();
        });
    }
    this.connect();
  }

  /** Put the ops of an earlier page load in front of the queue once we know who we are. */
  private adoptRestored() {
    if (this.restoring || !this.user) return;
    const saved = this.restored;
    this.restored = null;
    if (saved && saved.ops.length > 0 && String(saved.userId) === String(this.user.id)) {
      const known = new Set(this.pending.map((p) => p.clientOpId));
      const older = saved.ops
        .filter((o) => !known.has(o.clientOpId))
        .map<PendingOp>((o) => ({ clientOpId: o.clientOpId, op: o.op, ackedRevision: null, retries: 0 }));
      this.pending = [...older, ...this.pending];
      for (const p of this.pending) p.sent = false;
    }
    this.persist();
    this.pump();
    this.emit();
  }

  /** True while some op has not been acknowledged by the server (the page warns before unload). */
  hasUnsentOps(): boolean {
    return this.pending.some((p) => p.ackedRevision === null) || (this.restored?.ops.length ?? 0) > 0;
  }

  private persist() {
    if (!this.store || this.restoring) return;
    const ops = this.pending.filter((p) => p.ackedRevision === null).map((p) => ({ clientOpId: p.clientOpId, op: p.op }));
    try {
      this.store.save({ userId: this.user?.id ?? null, ops });
    } catch {
      /* storage full or unavailable: the queue still lives in memory */
    }
  }

  stop(): void {
    this.stopped = true;
    this.teardownSocket();
    this.clearTimer('reconnectTimer');
    this.clearTimer('presenceTimer');
    this.clearTimer('catchUpTimer');
    this.clearTimer('pumpTimer');
    this.listeners.clear();
    this.noticeListeners.clear();
    this.frameListeners.clear();
  }

  /** Close the socket and stay offline until goOnline() (used by tests and the UI). */
  goOffline(): void {
    this.forcedOffline = true;
    this.clearTimer('reconnectTimer');
    this.teardownSocket();
    this.status = 'offline';
    this.nextRetryAt = null;
    this.emit();
  }

  goOnline(): void {
    this.forcedOffline = false;
    this.attempt = 0;
    this.reconnectNow();
  }

  /** The browser says the network is gone: stop trusting the socket now instead of at the next heartbeat. */
  connectionLost(): void {
    if (!this.socket || this.stopped || this.forcedOffline || this.revoked) return;
    this.teardownSocket();
    this.scheduleReconnect();
    this.emit();
  }

  /** Skip the backoff wait (e.g. the browser came back online). */
  reconnectNow(): void {
    if (this.stopped || this.forcedOffline || this.revoked || this.socket) return;
    this.clearTimer('reconnectTimer');
    this.connect();
  }

  private connect() {
    if (this.stopped || this.forcedOffline || this.revoked) return;
    this.nextRetryAt = null;
    this.status = this.everConnected || this.attempt > 0 ? 'reconnecting' : 'connecting';
    const gen = ++this.generation;
    let socket: SocketLike;
    try {
      socket = this.opts.socketFactory(this.opts.url);
    } catch {
      this.scheduleReconnect();
      this.emit();
      return;
    }
    this.socket = socket;
    this.helloSent = false;
    socket.onopen = () => gen === this.generation && this.handleOpen();
    socket.onmessage = (ev) => gen === this.generation && this.handleRaw(ev.data);
    socket.onclose = (ev) => gen === this.generation && this.handleClose(ev?.code ?? 1006);
    socket.onerror = () => undefined;
    this.emit();
  }

  private teardownSocket() {
    this.generation++;
    const s = this.socket;
    this.socket = null;
    this.helloSent = false;
    this.awaitingSync = false;
    this.clearTimer('pingTimer');
    this.clearTimer('catchUpTimer');
    this.clearTimer('pumpTimer');
    this.catchUpSentAt = null;
    if (this.peers.size) {
      this.peers.clear();
      this.emitPeers();
    }
    for (const p of this.pending) p.sent = false;
    if (s) {
      s.onopen = s.onmessage = s.onclose = s.onerror = null;
      try {
        s.close(1000, 'client closing');
      } catch {
        /* already closed */
      }
    }
  }

  private handleOpen() {
    perfMark('socket-open');
    this.lastMessageAt = this.opts.now();
    this.sendFrame({ type: 'hello', last_revision: this.revision });
    this.helloSent = true;
    this.awaitingSync = true;
    // Resend everything not yet committed, in order, with the same ids.
    for (const p of this.pending) p.sent = false;
    this.pump();
    this.clearTimer('pingTimer');
    this.pingTimer = setInterval(() => this.heartbeat(), this.opts.pingIntervalMs);
    this.emit();
  }

  private heartbeat() {
    if (!this.socket) return;
    if (this.opts.now() - this.lastMessageAt > this.opts.idleTimeoutMs) {
      // Half-open connection: drop it and reconnect.
      this.teardownSocket();
      this.scheduleReconnect();
      this.emit();
      return;
    }
    this.sendFrame({ type: 'ping' });
  }

  private handleClose(code: number) {
    this.teardownSocket();
    if (code === 4403) {
      this.revoked = true;
      this.status = 'offline';
      this.notice({ kind: 'revoked', message: i18n.t('sync:revoked') });
    } else if (this.forcedOffline || this.stopped) {
      this.status = 'offline';
    } else {
      this.scheduleReconnect();
    }
    this.emit();
  }

  private scheduleReconnect() {
    if (this.stopped || this.forcedOffline || this.revoked) return;
    const base = Math.min(this.opts.maxBackoffMs, this.opts.initialBackoffMs * 2 ** this.attempt);
    const delay = Math.min(this.opts.maxBackoffMs, base * (1 + 0.2 * this.opts.random()));
    this.attempt++;
    this.status = 'reconnecting';
    this.nextRetryAt = this.opts.now() + delay;
    this.clearTimer('reconnectTimer');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect();
    }, delay);
  }

  private clearTimer(name: 'reconnectTimer' | 'pingTimer' | 'presenceTimer' | 'catchUpTimer' | 'pumpTimer') {
    const t = this[name];
    if (t !== null) {
      clearTimeout(t as ReturnType<typeof setTimeout>);
      clearInterval(t as ReturnType<typeof setInterval>);
      this[name] = null;
    }
  }

  private isOpen(): boolean {
    return !!this.socket && this.helloSent && this.socket.readyState === WS_OPEN;
  }

  private sendFrame(frame: unknown): boolean {
    if (!this.socket || this.socket.readyState !== WS_OPEN) return false;
    try {
      this.socket.send(JSON.stringify(frame));
      return true;
    } catch {
      return false;
    }
  }

  private sendOp(p: PendingOp): boolean {
    return this.sendFrame({ type: 'op', client_op_id: p.clientOpId, op: p.op });
  }

  /**
   * Send the unsent ops in queue order. Never skips one: a later op (an edge
   * to a node being created, a second move) must not overtake an earlier one.
   */
  private pump() {
    if (!this.isOpen() || this.restoring || (this.restored && !this.user)) return;
    const now = this.opts.now();
    if (now < this.holdUntil) {
      this.schedulePump(this.holdUntil - now);
      return;
    }
    const rate = this.sendRate;
    this.sendTokens = Math.min(rate, this.sendTokens + ((now - this.sendTokensAt) / 1000) * rate);
    this.sendTokensAt = now;
    let inFlight = this.pending.filter((p) => p.sent && p.ackedRevision === null).length;
    for (const p of this.pending) {
      if (p.ackedRevision !== null || p.sent) continue;
      if (inFlight >= this.opts.maxInFlight) return; // the next answer pumps again
      if (this.sendTokens < 1) {
        this.schedulePump(Math.ceil(((1 - this.sendTokens) / rate) * 1000));
        return;
      }
      if (!this.sendOp(p)) return;
      this.sendTokens -= 1;
      p.sent = true;
      inFlight++;
    }
  }

  private schedulePump(delay: number) {
    if (this.pumpTimer !== null) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      this.pump();
    }, Math.max(1, delay));
  }

  // ------------------------------------------------------------ ops

  /** Queue an op, show it optimistically and send it when possible. Returns its client_op_id. */
  submit(op: Op): string {
    const clientOpId = `${this.sessionId}-${++this.counter}`;
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
    this.pending.push(p);
    this.persist();
    this.pump();
    this.emit();
    return clientOpId;
  }

  // ------------------------------------------------------------ presence

  setPresence(viewport: PresenceViewport, cursor: PresenceCursor | null): void {
    this.presenceLatest = { viewport, cursor };
    this.flushPresence();
  }

  /** Announce which node I am editing / dragging; sent with the next presence frame (same throttle). */
  setActivity(activity: Partial<PresenceActivity>): void {
    this.presenceActivity = { ...this.presenceActivity, ...activity };
    this.flushPresence();
  }

  private flushPresence() {
    if (!this.presenceLatest || !this.isOpen()) return;
    const now = this.opts.now();
    const wait = this.presenceLastSentAt + this.opts.presenceIntervalMs - now;
    if (wait > 0) {
      if (!this.presenceTimer) {
        this.presenceTimer = setTimeout(() => {
          this.presenceTimer = null;
          this.flushPresence();
        }, wait);
      }
      return;
    }
    const payload = JSON.stringify({ type: 'presence', ...this.presenceLatest, ...this.presenceActivity });
    if (payload === this.presenceLastPayload) return;
    if (this.socket && this.socket.readyState === WS_OPEN) {
      this.socket.send(payload);
      this.presenceLastPayload = payload;
      this.presenceLastSentAt = now;
    }
  }

  // ------------------------------------------------------------ incoming

  private handleRaw(data: unknown) {
    this.lastMessageAt = this.opts.now();
    let msg: unknown;
    const big = typeof data === 'string' && data.length > BIG_FRAME_CHARS;
    if (big) perfMark('frame-received');
    try {
      msg = JSON.parse(String(data));
      if (big) perfMark('frame-parsed');
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object') return;
    this.handleMessage(msg as WireFrame);
  }

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
        return this.onPresence(msg as PresenceFrame);
      case 'presence_leave':
        if (this.peers.delete(String(msg.connection_id))) this.emitPeers();
        return;
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
    this.status = 'online';
    this.attempt = 0;
    this.everConnected = true;
    this.nextRetryAt = null;
    if (this.revision !== null && msg.canvas && msg.canvas.revision === this.revision) {
      // Already up to date; the server may still send an empty `changes`.
      this.awaitingSync = false;
    }
    this.flushPresence();
    if (this.restored || this.store) this.adoptRestored();
    this.emit();
  }

  private onSnapshot(msg: Snapshot & { type: 'snapshot' }) {
    this.server = docFromLists(msg.nodes ?? [], msg.edges ?? []);
    perfMark('snapshot-store-built');
    this.revision = msg.revision;
    this.synced = true;
    this.awaitingSync = false;
    this.catchUpSentAt = null;
    this.clearTimer('catchUpTimer');
    this.afterChanges();
    this.emit();
  }

  private onChanges(msg: { events?: ChangeEvent[] }) {
    this.awaitingSync = false;
    this.catchUpSentAt = null;
    this.clearTimer('catchUpTimer');
    for (const ev of msg.events ?? []) this.onChange({ ...ev, type: 'change' });
    this.afterChanges();
    this.emit();
  }

  /** Route one change event: ignore old ones, apply the next, buffer gaps. */
  private onChange(ev: ChangeEvent) {
    if (typeof ev.revision !== 'number') return;
    if (this.revision === null) {
      this.buffered.set(ev.revision, ev);
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
    this.buffered.set(ev.revision, ev);
  }

  private markCommitted(ev: ChangeEvent) {
    if (!ev.client_op_id) return;
    if (ev.actor?.user && this.user && ev.actor.user.id !== this.user.id) return;
    const p = this.pending.find((x) => x.clientOpId === ev.client_op_id);
    if (p && p.ackedRevision === null) this.committed(p, ev.revision);
  }

  /** The server committed `p` (its ack or its change event, whichever came first). */
  private committed(p: PendingOp, revision: number) {
    p.ackedRevision = revision;
    p.sent = false;
    this.sendRate = Math.min(this.opts.opsPerSecond, this.sendRate + 1);
    this.replayIfOvertaken(p);
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
      for (const rev of [...this.buffered.keys()]) if (rev <= this.revision) this.buffered.delete(rev);
      let next = this.buffered.get(this.revision + 1);
      while (next) {
        this.buffered.delete(next.revision);
        this.applyEvent(next);
        next = this.buffered.get(this.revision + 1);
      }
    }
    const r = this.revision;
    if (r !== null) {
      const before = this.pending.length;
      this.pending = this.pending.filter((p) => p.ackedRevision === null || p.ackedRevision > r);
      if (this.pending.length !== before) this.persist();
    }
    const waitingFor = this.pending.some((p) => p.ackedRevision !== null);
    if (this.buffered.size > 0 || waitingFor) this.requestCatchUp();
    else {
      this.catchUpSentAt = null;
      this.clearTimer('catchUpTimer');
    }
  }

  private requestCatchUp() {
    if (this.revision === null || this.awaitingSync || !this.isOpen()) return;
    const now = this.opts.now();
    if (this.catchUpSentAt !== null && now - this.catchUpSentAt < this.opts.catchUpTimeoutMs) return;
    this.sendFrame({ type: 'catch_up', since: this.revision });
    this.catchUpSentAt = now;
    this.clearTimer('catchUpTimer');
    this.catchUpTimer = setTimeout(() => {
      this.catchUpTimer = null;
      this.catchUpSentAt = null;
      this.afterChanges();
      this.emit();
    }, this.opts.catchUpTimeoutMs);
  }

  private onAck(msg: AckFrame) {
    const p = this.pending.find((x) => x.clientOpId === msg.client_op_id);
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

  /**
   * An op committed while an earlier op touching the same node or edge waits
   * for its resend (RATE_LIMITED) will be overwritten by that older op. Send
   * its fields again right after it, so the newest intent wins as typed.
   */
  private replayIfOvertaken(p: PendingOp) {
    const idx = this.pending.indexOf(p);
    if (!REPLAYABLE.has(p.op.type)) return;
    const mine = touchedIds(p.op, new Set<string>());
    const overtaken = this.pending
      .slice(0, idx)
      .some((e) => e.ackedRevision === null && e.retries > 0 && [...touchedIds(e.op, new Set<string>())].some((id) => mine.has(id)));
    if (!overtaken) return;
    const copy: PendingOp = { clientOpId: `${this.sessionId}-${++this.counter}`, op: p.op, ackedRevision: null, retries: 0 };
    this.pending.splice(idx + 1, 0, copy);
  }

  /** An earlier op is still waiting to be (re)sent: this one may have failed only because of it. */
  private waitsBehindEarlier(p: PendingOp): boolean {
    const idx = this.pending.indexOf(p);
    return this.pending.slice(0, idx).some((e) => e.ackedRevision === null && (e.retries > 0 || !e.sent));
  }

  private onReject(msg: RejectFrame) {
    const idx = this.pending.findIndex((x) => x.clientOpId === msg.client_op_id);
    const p = idx >= 0 ? this.pending[idx] : undefined;
    const code = msg.error?.code;
    if (p && code === 'RATE_LIMITED') {
      // Nothing was applied. Pause, then resend from this op on, in order; never drop it.
      p.retries++;
      p.sent = false;
      const now = this.opts.now();
      if (now - this.lastRateCutAt > 200) {
        // One cut per burst of rejects: the later ones answer frames sent before the first arrived.
        this.sendRate = Math.max(5, this.sendRate / 2);
        this.sendTokens = Math.min(this.sendTokens, 0);
        this.lastRateCutAt = now;
      }
      const hinted = Number(msg.error?.retry_after_ms);
      const pause = Math.min(this.opts.maxBackoffMs, Number.isFinite(hinted) && hinted > 0 ? hinted : this.opts.rateLimitPauseMs);
      this.holdUntil = Math.max(this.holdUntil, now + pause);
      this.clearTimer('pumpTimer');
      this.schedulePump(pause);
      this.emit();
      return;
    }
    if (p && code === 'NOT_FOUND' && (p.orderRetries ?? 0) < 2 && this.waitsBehindEarlier(p)) {
      // e.g. an edge whose node.create was rate-limited: send it again after that op.
      p.orderRetries = (p.orderRetries ?? 0) + 1;
      p.sent = false;
      this.pump();
      return;
    }
    if (idx >= 0) {
      this.pending.splice(idx, 1);
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
    this.buffered.clear();
    this.catchUpSentAt = null;
    this.clearTimer('catchUpTimer');
    if (this.sendFrame({ type: 'hello', last_revision: null })) this.awaitingSync = true;
    this.emit();
  }

  private onPresence(msg: PresenceFrame) {
    const id = String(msg.connection_id ?? '');
    if (!id || id === this.connectionId || !msg.user) return;
    this.peers.set(id, {
      connectionId: id,
      user: msg.user,
      color: typeof msg.color === 'string' ? msg.color : '#64748b',
      viewport: msg.viewport ?? null,
      cursor: msg.cursor ?? null,
      editing: typeof msg.editing === 'string' ? msg.editing : null,
      dragging: msg.dragging && typeof msg.dragging.id === 'string' ? msg.dragging : null,
      updatedAt: this.opts.now(),
    });
    this.emitPeers();
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
      peers: this.peersSnapshot.map((p) => ({ ...p })),
    };
  }
}
