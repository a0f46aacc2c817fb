import { describe, expect, it, vi } from 'vitest';
import type { PendingOp } from './engineTypes';
import { OpPump } from './opPump';
import { PendingQueue } from './pendingQueue';
import { fakeTimersPerTest } from '../test/fakeTimers';

fakeTimersPerTest();

function pumpWith(opts: { opsPerSecond?: number; maxInFlight?: number; ready?: () => boolean; accept?: () => boolean } = {}) {
  const queue = new PendingQueue('t');
  const sent: string[] = [];
  const pump = new OpPump(opts.opsPerSecond ?? 100, opts.maxInFlight ?? 10, () => Date.now(), queue, {
    ready: opts.ready ?? (() => true),
    send: (p) => {
      if (opts.accept && !opts.accept()) return false;
      sent.push(p.clientOpId);
      return true;
    },
  });
  const add = (n: number) => {
    for (let i = 0; i < n; i++) {
      const p: PendingOp = { clientOpId: queue.nextClientOpId(), op: { type: 'node.move', id: 'a', x: i, y: 0 }, ackedRevision: null, retries: 0 };
      queue.push(p);
    }
  };
  return { pump, queue, sent, add };
}

describe('OpPump', () => {
  it('sends unsent ops in queue order, once each', () => {
    const { pump, sent, add } = pumpWith();
    add(3);
    pump.pump();
    pump.pump();
    expect(sent).toEqual(['t-1', 't-2', 't-3']);
  });

  it('sends nothing while not ready, and stops at the first op the socket refuses', () => {
    let ready = false;
    let accept = false;
    const { pump, sent, add, queue } = pumpWith({ ready: () => ready, accept: () => accept });
    add(2);
    pump.pump();
    expect(sent).toEqual([]);
    ready = true;
    pump.pump();
    expect(queue.ops.map((p) => p.sent ?? false)).toEqual([false, false]);
    accept = true;
    pump.pump();
    expect(sent).toEqual(['t-1', 't-2']);
  });

  it('keeps at most maxInFlight unanswered ops on the wire', () => {
    const { pump, sent, add, queue } = pumpWith({ maxInFlight: 2 });
    add(3);
    pump.pump();
    expect(sent).toEqual(['t-1', 't-2']);
    queue.ops[0].ackedRevision = 5;
    queue.ops[0].sent = false;
    pump.committed();
    vi.advanceTimersByTime(1);
    expect(sent).toEqual(['t-1', 't-2', 't-3']);
  });

  it('sends nothing during a RATE_LIMITED pause and resumes after it', () => {
    const { pump, sent, add, queue } = pumpWith();
    add(1);
    pump.pump();
    queue.ops[0].sent = false;
    pump.rateLimited(500);
    pump.pump();
    expect(sent).toEqual(['t-1']);
    vi.advanceTimersByTime(499);
    expect(sent).toEqual(['t-1']);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual(['t-1', 't-1']);
  });

  it('cancel drops a scheduled pump', () => {
    const { pump, sent, add } = pumpWith();
    add(1);
    pump.schedule(100);
    pump.cancel();
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual([]);
  });
});
