// Sending the queued ops: strictly in queue order, at most maxInFlight unanswered, paced by the
// token bucket (sendPacer.ts), and paused after RATE_LIMITED until the server's retry_after_ms.

import type { PendingOp } from './engineTypes';
import type { PendingQueue } from './pendingQueue';
import { SendPacer } from './sendPacer';
import { Timer } from './timer';

export interface OpPumpHooks {
  /** May ops go out now (socket open, restored ops adopted)? */
  ready(): boolean;
  /** Put one op on the wire; false when the socket refused it. */
  send(p: PendingOp): boolean;
}

export class OpPump {
  private readonly pacer: SendPacer;
  private readonly timer = new Timer();

  constructor(
    opsPerSecond: number,
    private readonly maxInFlight: number,
    private readonly now: () => number,
    private readonly queue: PendingQueue,
    private readonly hooks: OpPumpHooks,
  ) {
    this.pacer = new SendPacer(opsPerSecond);
  }

  /**
   * Send the unsent ops in queue order. Never skips one: a later op (an edge
   * to a node being created, a second move) must not overtake an earlier one.
   */
  pump(): void {
    if (!this.hooks.ready()) return;
    const now = this.now();
    const held = this.pacer.heldFor(now);
    if (held > 0) {
      this.schedule(held);
      return;
    }
    this.pacer.refill(now);
    let inFlight = this.queue.inFlight();
    for (const p of this.queue.ops) {
      if (p.ackedRevision !== null || p.sent) continue;
      if (inFlight >= this.maxInFlight) return; // the next answer pumps again
      const wait = this.pacer.waitForToken();
      if (wait > 0) {
        this.schedule(wait);
        return;
      }
      if (!this.hooks.send(p)) return;
      this.pacer.take();
      p.sent = true;
      inFlight++;
    }
  }

  /** Pump after `delay` ms unless a pump is already scheduled. */
  schedule(delay: number): void {
    if (this.timer.active) return;
    this.timer.once(Math.max(1, delay), () => this.pump());
  }

  /** The server committed an op: speed up again, and send what waits. */
  committed(): void {
    this.pacer.recover();
    this.schedule(0);
  }

  /** The server refused an op as RATE_LIMITED: slow down and send nothing for `pauseMs`. */
  rateLimited(pauseMs: number): void {
    this.pacer.throttle(this.now(), pauseMs);
    this.timer.clear();
    this.schedule(pauseMs);
  }

  /** Nothing is on the wire any more (socket gone, engine stopped). */
  cancel(): void {
    this.timer.clear();
  }
}
