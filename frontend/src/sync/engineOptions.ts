// The engine's options and their defaults.

import type { PendingStore, SocketFactory, SocketLike } from './engineTypes';

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
  /** whether the browser has a network (navigator.onLine); no reconnect attempts while it says no */
  isOnline?: () => boolean;
}

/** Every option but the session id and the store, with its default filled in. */
export type EngineSettings = Required<Omit<EngineOptions, 'socketFactory' | 'sessionId' | 'pendingStore'>> & {
  socketFactory: SocketFactory;
};

export function engineSettings(options: EngineOptions): EngineSettings {
  return {
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
    isOnline: options.isOnline ?? (() => typeof navigator === 'undefined' || navigator.onLine !== false),
  };
}
