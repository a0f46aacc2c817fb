import { describe, expect, it, vi } from 'vitest';
import { fakeTimersPerTest } from '../test/fakeTimers';
import { ReconnectSchedule } from './reconnect';

fakeTimersPerTest();

describe('ReconnectSchedule', () => {
  it('doubles the wait per attempt up to the cap and starts over after reset', () => {
    const schedule = new ReconnectSchedule(500, 4000, () => 0);
    const connect = vi.fn();
    expect([1, 2, 3, 4, 5].map(() => schedule.schedule(connect))).toEqual([500, 1000, 2000, 4000, 4000]);
    schedule.reset();
    expect(schedule.schedule(connect)).toBe(500);
  });

  it('adds up to 20 % jitter but never passes the cap', () => {
    const schedule = new ReconnectSchedule(1000, 1100, () => 1);
    expect(schedule.schedule(() => undefined)).toBe(1100);
    expect(new ReconnectSchedule(1000, 10_000, () => 0.5).schedule(() => undefined)).toBeCloseTo(1100);
  });

  it('runs only the latest attempt, and none after cancel', () => {
    const schedule = new ReconnectSchedule(100, 1000, () => 0);
    const first = vi.fn();
    const second = vi.fn();
    schedule.schedule(first);
    schedule.schedule(second);
    vi.advanceTimersByTime(200);
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
    const third = vi.fn();
    schedule.schedule(third);
    schedule.cancel();
    vi.advanceTimersByTime(10_000);
    expect(third).not.toHaveBeenCalled();
  });
});
