import { describe, expect, it } from 'vitest';
import type { PendingOp } from './engineTypes';
import { rejectOutcome } from './rejects';

const LIMITS = { maxBackoffMs: 10_000, rateLimitPauseMs: 750 };
const op = (extra: Partial<PendingOp> = {}): PendingOp => ({ clientOpId: 's-1', op: { type: 'node.move', id: 'a', x: 1, y: 2 }, ackedRevision: null, retries: 0, ...extra });
const behind = () => true;
const first = () => false;

describe('rejectOutcome', () => {
  it('pauses a rate-limited op for the hinted time, capped by the backoff limit', () => {
    expect(rejectOutcome(op(), { code: 'RATE_LIMITED', retry_after_ms: 1200 }, first, LIMITS)).toEqual({ kind: 'pause', pauseMs: 1200 });
    expect(rejectOutcome(op(), { code: 'RATE_LIMITED', retry_after_ms: 60_000 }, first, LIMITS)).toEqual({ kind: 'pause', pauseMs: 10_000 });
  });

  it('uses the default pause when the hint is missing or nonsense', () => {
    expect(rejectOutcome(op(), { code: 'RATE_LIMITED' }, first, LIMITS)).toEqual({ kind: 'pause', pauseMs: 750 });
    expect(rejectOutcome(op(), { code: 'RATE_LIMITED', retry_after_ms: -5 }, first, LIMITS)).toEqual({ kind: 'pause', pauseMs: 750 });
  });

  it('sends a NOT_FOUND op again behind an earlier pending op, twice at most', () => {
    expect(rejectOutcome(op(), { code: 'NOT_FOUND' }, behind, LIMITS)).toEqual({ kind: 'after-earlier' });
    expect(rejectOutcome(op({ orderRetries: 1 }), { code: 'NOT_FOUND' }, behind, LIMITS)).toEqual({ kind: 'after-earlier' });
    expect(rejectOutcome(op({ orderRetries: 2 }), { code: 'NOT_FOUND' }, behind, LIMITS)).toEqual({ kind: 'drop' });
    expect(rejectOutcome(op(), { code: 'NOT_FOUND' }, first, LIMITS)).toEqual({ kind: 'drop' });
  });

  it('drops other refusals and rejects for ops it does not know', () => {
    expect(rejectOutcome(op(), { code: 'FORBIDDEN' }, behind, LIMITS)).toEqual({ kind: 'drop' });
    expect(rejectOutcome(undefined, { code: 'RATE_LIMITED' }, behind, LIMITS)).toEqual({ kind: 'drop' });
  });
});
