import { describe, expect, it, vi } from 'vitest';
import { UndoQueue, type UndoKind, type UndoOutcome } from './undoQueue';

function deferredServer() {
  const calls: { kind: UndoKind; resolve: (v: string) => void; reject: (e: unknown) => void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const perform = (kind: UndoKind) =>
    new Promise<string>((resolve, reject) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      calls.push({
        kind,
        resolve: (v) => {
          inFlight -= 1;
          resolve(v);
        },
        reject: (e) => {
          inFlight -= 1;
          reject(e);
        },
      });
    });
  return { calls, perform, maxInFlight: () => maxInFlight };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('UndoQueue', () => {
  it('applies every quick press, one at a time, in order', async () => {
    const server = deferredServer();
    const drained: UndoOutcome<string>[][] = [];
    const q = new UndoQueue<string>({ perform: server.perform, isExhausted: () => false, onDrained: (o) => drained.push(o) });
    for (let i = 0; i < 10; i++) q.push('undo');
    q.push('redo');
    expect(q.size).toBe(11);
    for (let i = 0; i < 11; i++) {
      await tick();
      expect(server.calls).toHaveLength(i + 1);
      server.calls[i].resolve(`r${i}`);
    }
    await tick();
    expect(server.maxInFlight()).toBe(1);
    expect(server.calls.map((c) => c.kind)).toEqual([...Array(10).fill('undo'), 'redo']);
    expect(drained).toHaveLength(1);
    expect(drained[0].map((o) => (o.ok ? o.result : 'err'))).toEqual(Array.from({ length: 11 }, (_, i) => `r${i}`));
    expect(q.size).toBe(0);
  });

  it('drops the waiting presses of a kind once there is nothing left of it, keeping the others', async () => {
    const server = deferredServer();
    const drained: UndoOutcome<string>[][] = [];
    const q = new UndoQueue<string>({
      perform: server.perform,
      isExhausted: (e) => e === 'nothing',
      onDrained: (o) => drained.push(o),
    });
    q.push('undo');
    q.push('undo');
    q.push('redo');
    q.push('undo');
    await tick();
    server.calls[0].reject('nothing');
    await tick();
    await tick();
    expect(server.calls.map((c) => c.kind)).toEqual(['undo', 'redo']);
    server.calls[1].resolve('redone');
    await tick();
    expect(drained[0].map((o) => [o.kind, o.ok])).toEqual([
      ['undo', false],
      ['redo', true],
    ]);
  });

  it('caps the presses waiting', async () => {
    const server = deferredServer();
    const q = new UndoQueue<string>({ perform: server.perform, isExhausted: () => false, onDrained: () => {}, maxWaiting: 3 });
    for (let i = 0; i < 10; i++) q.push('undo');
    // one in flight, three waiting
    expect(q.size).toBe(4);
  });

  it('reports presses slower than the answers as one burst when they come within the gap', async () => {
    vi.useFakeTimers();
    try {
      const drained: UndoOutcome<string>[][] = [];
      let n = 0;
      const q = new UndoQueue<string>({
        perform: async () => `r${n++}`,
        isExhausted: () => false,
        onDrained: (o) => drained.push(o),
        burstGapMs: 400,
      });
      for (let i = 0; i < 3; i++) {
        q.push('undo');
        await vi.advanceTimersByTimeAsync(150); // answered, queue empty, next press inside the gap
        expect(q.size).toBe(0);
      }
      expect(drained).toHaveLength(0);
      await vi.advanceTimersByTimeAsync(400);
      expect(drained.map((b) => b.length)).toEqual([3]);
      q.push('redo'); // after the gap: a burst of its own
      await vi.advanceTimersByTimeAsync(500);
      expect(drained.map((b) => b.length)).toEqual([3, 1]);
    } finally {
      vi.useRealTimers();
    }
  });
});
