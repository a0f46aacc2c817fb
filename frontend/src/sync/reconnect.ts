// Reconnecting after a lost socket: exponential backoff with jitter, one timer.

import { Timer } from './timer';

export class ReconnectSchedule {
  /** failed or pending attempts since the last welcome (0 = none) */
  attempt = 0;
  private readonly timer = new Timer();

  constructor(
    private readonly initialBackoffMs: number,
    private readonly maxBackoffMs: number,
    private readonly random: () => number,
  ) {}

  /** Arm the timer for the next attempt and return its delay: doubles per attempt, +0–20 % jitter, capped. */
  schedule(connect: () => void): number {
    const base = Math.min(this.maxBackoffMs, this.initialBackoffMs * 2 ** this.attempt);
    const delay = Math.min(this.maxBackoffMs, base * (1 + 0.2 * this.random()));
    this.attempt++;
    this.timer.clear();
    this.timer.once(delay, connect);
    return delay;
  }

  /** Connected (or told to try at once): the next failure waits the initial backoff again. */
  reset(): void {
    this.attempt = 0;
  }

  cancel(): void {
    this.timer.clear();
  }
}
