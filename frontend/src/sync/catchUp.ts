// Gaps in the revision sequence: change events that arrive ahead of the next revision wait in a
// buffer, and a `catch_up` request (at most one per timeout) asks the server for what is missing.

import type { ChangeEvent } from '../api/types';
import { Timer } from './timer';

export class GapBuffer {
  private readonly buffered = new Map<number, ChangeEvent>();
  private sentAt: number | null = null;
  private readonly timer = new Timer();

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.buffered.size;
  }

  hold(ev: ChangeEvent): void {
    this.buffered.set(ev.revision, ev);
  }

  /** Forget held events at or before `revision` (the document has them). */
  dropUpTo(revision: number): void {
    for (const rev of [...this.buffered.keys()]) if (rev <= revision) this.buffered.delete(rev);
  }

  /** Take the held event for `revision + 1`, if any. */
  takeNext(revision: number): ChangeEvent | undefined {
    const next = this.buffered.get(revision + 1);
    if (next) this.buffered.delete(next.revision);
    return next;
  }

  clear(): void {
    this.buffered.clear();
  }

  /** The gap is answered (snapshot, changes) or moot (socket gone): a new request may go at once. */
  settle(): void {
    this.sentAt = null;
    this.timer.clear();
  }

  /**
   * Ask for the revisions after `since` unless a request is already out; when no answer came
   * within the timeout, `retry` runs (and may ask again).
   */
  request(since: number, send: (frame: { type: 'catch_up'; since: number }) => void, retry: () => void): void {
    const now = this.now();
    if (this.sentAt !== null && now - this.sentAt < this.timeoutMs) return;
    send({ type: 'catch_up', since });
    this.sentAt = now;
    this.timer.clear();
    this.timer.once(this.timeoutMs, () => {
      this.sentAt = null;
      retry();
    });
  }
}
