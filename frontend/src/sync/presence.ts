// Presence: the other connections' cursors and activity (their own store, since cursor frames
// arrive many times a second and must not rebuild the engine state every component reads), and
// the throttled presence frames this client sends.

import type { PresenceActivity, PresenceCursor, PresenceViewport } from '../api/types';
import type { PresencePeer } from './engineTypes';
import { Listeners } from './listeners';
import { Timer } from './timer';
import type { PresenceFrame } from './wireFrames';

export class PeerStore {
  private peers = new Map<string, PresencePeer>();
  private snapshot: readonly PresencePeer[] = [];
  private readonly listeners = new Listeners();

  /** the other connections' presence (a new array only when it changed) */
  get = (): readonly PresencePeer[] => this.snapshot;

  subscribe = (listener: () => void): (() => void) => this.listeners.add(listener);

  private emit() {
    this.snapshot = [...this.peers.values()];
    this.listeners.call();
  }

  /** A presence frame from another connection (our own echo and frames without a user are ignored). */
  update(msg: PresenceFrame, ownConnectionId: string | null, now: () => number): void {
    const id = String(msg.connection_id ?? '');
    if (!id || id === ownConnectionId || !msg.user) return;
    this.peers.set(id, {
      connectionId: id,
      user: msg.user,
      color: typeof msg.color === 'string' ? msg.color : '#64748b',
      viewport: msg.viewport ?? null,
      cursor: msg.cursor ?? null,
      editing: typeof msg.editing === 'string' ? msg.editing : null,
      dragging: msg.dragging && typeof msg.dragging.id === 'string' ? msg.dragging : null,
      updatedAt: now(),
    });
    this.emit();
  }

  remove(connectionId: string): void {
    if (this.peers.delete(connectionId)) this.emit();
  }

  /** The socket is gone: nobody's presence is known any more. */
  clear(): void {
    if (this.peers.size) {
      this.peers.clear();
      this.emit();
    }
  }
}

/** Where presence frames go: `canSend` after hello, `socketOpen`/`sendRaw` on the raw socket. */
export interface PresenceTransport {
  canSend(): boolean;
  socketOpen(): boolean;
  sendRaw(text: string): void;
}

/** The latest viewport, cursor and activity, sent at most once per interval and only when changed. */
export class PresenceSender {
  private latest: { viewport: PresenceViewport; cursor: PresenceCursor | null } | null = null;
  private activity: PresenceActivity = { editing: null, dragging: null };
  private lastSentAt = -Infinity;
  private lastPayload = '';
  private readonly timer = new Timer();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
    private readonly transport: PresenceTransport,
  ) {}

  setPresence(viewport: PresenceViewport, cursor: PresenceCursor | null): void {
    this.latest = { viewport, cursor };
    this.flush();
  }

  setActivity(activity: Partial<PresenceActivity>): void {
    this.activity = { ...this.activity, ...activity };
    this.flush();
  }

  flush(): void {
    if (!this.latest || !this.transport.canSend()) return;
    const now = this.now();
    const wait = this.lastSentAt + this.intervalMs - now;
    if (wait > 0) {
      if (!this.timer.active) this.timer.once(wait, () => this.flush());
      return;
    }
    const payload = JSON.stringify({ type: 'presence', ...this.latest, ...this.activity });
    if (payload === this.lastPayload) return;
    if (this.transport.socketOpen()) {
      this.transport.sendRaw(payload);
      this.lastPayload = payload;
      this.lastSentAt = now;
    }
  }

  stop(): void {
    this.timer.clear();
  }
}
