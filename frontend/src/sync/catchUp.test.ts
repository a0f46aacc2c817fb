import { describe, expect, it, vi } from 'vitest';
import { fakeTimersPerTest } from '../test/fakeTimers';
import type { ChangeEvent } from '../api/types';
import { GapBuffer } from './catchUp';

fakeTimersPerTest();

const ev = (revision: number): ChangeEvent => ({ type: 'change', revision, client_op_id: null, changes: [] });

describe('GapBuffer', () => {
  it('hands held events back in revision order and forgets those the document has', () => {
    const gaps = new GapBuffer(5000, () => Date.now());
    gaps.hold(ev(14));
    gaps.hold(ev(12));
    gaps.hold(ev(9));
    gaps.dropUpTo(10);
    expect(gaps.size).toBe(2);
    expect(gaps.takeNext(10)).toBeUndefined();
    expect(gaps.takeNext(11)?.revision).toBe(12);
    expect(gaps.takeNext(12)).toBeUndefined();
    expect(gaps.takeNext(13)?.revision).toBe(14);
    expect(gaps.size).toBe(0);
  });

  it('sends one catch_up per timeout and retries when no answer came', () => {
    const gaps = new GapBuffer(5000, () => Date.now());
    const sent: { type: string; since: number }[] = [];
    const retry = vi.fn();
    gaps.request(10, (f) => sent.push(f), retry);
    gaps.request(10, (f) => sent.push(f), retry);
    expect(sent).toEqual([{ type: 'catch_up', since: 10 }]);
    vi.advanceTimersByTime(5000);
    expect(retry).toHaveBeenCalledTimes(1);
    gaps.request(11, (f) => sent.push(f), retry);
    expect(sent).toHaveLength(2);
  });

  it('settle() lets the next request go at once and cancels the retry', () => {
    const gaps = new GapBuffer(5000, () => Date.now());
    const sent: unknown[] = [];
    const retry = vi.fn();
    gaps.request(3, (f) => sent.push(f), retry);
    gaps.settle();
    vi.advanceTimersByTime(6000);
    expect(retry).not.toHaveBeenCalled();
    gaps.request(3, (f) => sent.push(f), retry);
    expect(sent).toHaveLength(2);
  });
});
