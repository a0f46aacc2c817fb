// What a `reject` frame means for the op it refuses (docs/protocol.md).

import type { PendingOp } from './engineTypes';
import type { RejectFrame } from './wireFrames';

export type RejectOutcome =
  /** RATE_LIMITED: nothing was applied; hold all sending for pauseMs, then resend from this op on. */
  | { kind: 'pause'; pauseMs: number }
  /** NOT_FOUND while an earlier op it may need is still pending: send it again after that op. */
  | { kind: 'after-earlier' }
  /** Anything else: the op is refused for good; drop it and tell the user. */
  | { kind: 'drop' };

/** How often an op may be sent again behind an earlier one before its NOT_FOUND counts. */
const MAX_ORDER_RETRIES = 2;

export function rejectOutcome(
  p: PendingOp | undefined,
  error: RejectFrame['error'],
  waitsBehindEarlier: (p: PendingOp) => boolean,
  limits: { maxBackoffMs: number; rateLimitPauseMs: number },
): RejectOutcome {
  const code = error?.code;
  if (p && code === 'RATE_LIMITED') {
    const hinted = Number(error?.retry_after_ms);
    const pauseMs = Math.min(limits.maxBackoffMs, Number.isFinite(hinted) && hinted > 0 ? hinted : limits.rateLimitPauseMs);
    return { kind: 'pause', pauseMs };
  }
  // e.g. an edge whose node.create was rate-limited
  if (p && code === 'NOT_FOUND' && (p.orderRetries ?? 0) < MAX_ORDER_RETRIES && waitsBehindEarlier(p)) return { kind: 'after-earlier' };
  return { kind: 'drop' };
}
