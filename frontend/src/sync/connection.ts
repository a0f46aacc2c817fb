// The engine's socket and its lifecycle: connecting, online, reconnecting with backoff after a
// loss, offline on request, when membership is revoked (close 4403) or while the browser has no
// network (no attempts then; the window's `online` event reconnects at once). Events of sockets already
// replaced are ignored (a generation counter); a silent socket is dropped by the heartbeat.

import i18n from 'i18next';
import { perfMark } from '../lib/perfMarks';
import type { EngineSettings } from './engineOptions';
import type { ConnectionStatus, Notice, SocketLike, WireFrame } from './engineTypes';
import { ReconnectSchedule } from './reconnect';
import { Timer } from './timer';

const WS_OPEN = 1;

/** frames longer than this (snapshots, big catch-ups) get User Timing marks around their parse */
const BIG_FRAME_CHARS = 100_000;

/** What the engine does when the connection changes. */
export interface ConnectionHost {
  /** the hello frame for a new socket */
  helloFrame(): unknown;
  /** hello went out: the queue may be sent again */
  greeted(): void;
  /** a decoded frame arrived */
  message(msg: WireFrame): void;
  /** the socket was dropped: forget what was on the wire */
  socketGone(): void;
  changed(): void;
  notice(n: Notice): void;
}

export class Connection {
  status: ConnectionStatus = 'connecting';
  /** membership revoked (close 4403): no reconnects */
  revoked = false;
  /** goOffline() was called */
  forcedOffline = false;
  /** the browser reports no network: waiting for it instead of retrying */
  networkDown = false;
  /** when the next reconnect attempt is due (epoch ms) */
  nextRetryAt: number | null = null;
  socket: SocketLike | null = null;
  private stopped = false;
  private everConnected = false;
  private helloSent = false;
  private lastMessageAt = 0;
  private generation = 0;
  private readonly ping = new Timer();
  private readonly reconnect: ReconnectSchedule;

  constructor(
    private readonly opts: EngineSettings,
    private readonly host: ConnectionHost,
  ) {
    this.reconnect = new ReconnectSchedule(opts.initialBackoffMs, opts.maxBackoffMs, opts.random);
  }

  stop(): void {
    this.stopped = true;
    this.teardown();
    this.reconnect.cancel();
  }

  /** Close the socket and stay offline until goOnline(). */
  goOffline(): void {
    this.forcedOffline = true;
    this.reconnect.cancel();
    this.teardown();
    this.status = 'offline';
    this.nextRetryAt = null;
    this.host.changed();
  }

  goOnline(): void {
    this.forcedOffline = false;
    this.reconnect.reset();
    this.reconnectNow();
  }

  /** The browser says the network is gone: stop trusting the socket now instead of at the next heartbeat. */
  connectionLost(): void {
    if (this.stopped || this.forcedOffline || this.revoked) return;
    // Between attempts with the network still up there is nothing to drop; offline, the pending retry goes.
    if (!this.socket && this.opts.isOnline()) return;
    this.teardown();
    this.scheduleReconnect();
    this.host.changed();
  }

  /** Skip the backoff wait (e.g. the browser came back online). */
  reconnectNow(): void {
    if (this.stopped || this.forcedOffline || this.revoked || this.socket) return;
    this.reconnect.cancel();
    this.connect();
  }

  /** The server welcomed us: online, and the next loss waits the initial backoff again. */
  welcomed(): void {
    this.status = 'online';
    this.reconnect.reset();
    this.everConnected = true;
    this.nextRetryAt = null;
  }

  connect(): void {
    if (this.stopped || this.forcedOffline || this.revoked) return;
    if (!this.opts.isOnline()) {
      this.waitForNetwork();
      this.host.changed();
      return;
    }
    this.networkDown = false;
    this.nextRetryAt = null;
    this.status = this.everConnected || this.reconnect.attempt > 0 ? 'reconnecting' : 'connecting';
    const gen = ++this.generation;
    let socket: SocketLike;
    try {
      socket = this.opts.socketFactory(this.opts.url);
    } catch {
      this.scheduleReconnect();
      this.host.changed();
      return;
    }
    this.socket = socket;
    this.helloSent = false;
    socket.onopen = () => gen === this.generation && this.handleOpen();
    socket.onmessage = (ev) => gen === this.generation && this.handleRaw(ev.data);
    socket.onclose = (ev) => gen === this.generation && this.handleClose(ev?.code ?? 1006);
    socket.onerror = () => undefined;
    this.host.changed();
  }

  private teardown() {
    this.generation++;
    const s = this.socket;
    this.socket = null;
    this.helloSent = false;
    this.ping.clear();
    this.host.socketGone();
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
    this.sendFrame(this.host.helloFrame());
    this.helloSent = true;
    this.host.greeted();
    this.ping.clear();
    this.ping.every(this.opts.pingIntervalMs, () => this.heartbeat());
    this.host.changed();
  }

  private heartbeat() {
    if (!this.socket) return;
    if (this.opts.now() - this.lastMessageAt > this.opts.idleTimeoutMs) {
      // Half-open connection: drop it and reconnect.
      this.teardown();
      this.scheduleReconnect();
      this.host.changed();
      return;
    }
    this.sendFrame({ type: 'ping' });
  }

  private handleClose(code: number) {
    this.teardown();
    if (code === 4403) {
      this.revoked = true;
      this.status = 'offline';
      this.host.notice({ kind: 'revoked', message: i18n.t('sync:revoked') });
    } else if (this.forcedOffline || this.stopped) {
      this.status = 'offline';
    } else {
      this.scheduleReconnect();
    }
    this.host.changed();
  }

  private scheduleReconnect() {
    if (this.stopped || this.forcedOffline || this.revoked) return;
    if (!this.opts.isOnline()) return this.waitForNetwork();
    const delay = this.reconnect.schedule(() => this.connect());
    this.status = 'reconnecting';
    this.nextRetryAt = this.opts.now() + delay;
  }

  /** Attempts would only fail: stay offline until the browser's `online` event calls reconnectNow(). */
  private waitForNetwork() {
    this.reconnect.cancel();
    this.reconnect.reset();
    this.networkDown = true;
    this.status = 'offline';
    this.nextRetryAt = null;
  }

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
    this.host.message(msg as WireFrame);
  }

  /** Open and greeted: ops and other frames may be sent. */
  isOpen(): boolean {
    return !!this.socket && this.helloSent && this.socket.readyState === WS_OPEN;
  }

  /** The socket itself is open (hello may not be sent yet). */
  isWritable(): boolean {
    return !!this.socket && this.socket.readyState === WS_OPEN;
  }

  sendFrame(frame: unknown): boolean {
    if (!this.socket || this.socket.readyState !== WS_OPEN) return false;
    try {
      this.socket.send(JSON.stringify(frame));
      return true;
    } catch {
      return false;
    }
  }
}
