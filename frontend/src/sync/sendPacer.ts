// Pacing of outgoing ops: a token bucket under the server's rate limit that halves its rate on
// RATE_LIMITED, recovers with every commit, and holds all sending until the server's retry_after_ms.

export class SendPacer {
  private tokens: number;
  private tokensAt = 0;
  private holdUntil = 0;
  /** current pace: halved on RATE_LIMITED, recovers with every ack (up to opsPerSecond) */
  private rate: number;
  private lastCutAt = -Infinity;

  constructor(private readonly opsPerSecond: number) {
    this.tokens = opsPerSecond;
    this.rate = opsPerSecond;
  }

  /** ms until sending may resume after a RATE_LIMITED pause (0 when not held). */
  heldFor(now: number): number {
    return now < this.holdUntil ? this.holdUntil - now : 0;
  }

  /** Add the tokens earned since the last refill. */
  refill(now: number): void {
    const rate = this.rate;
    this.tokens = Math.min(rate, this.tokens + ((now - this.tokensAt) / 1000) * rate);
    this.tokensAt = now;
  }

  /** ms until the next token (0 when one is there). */
  waitForToken(): number {
    if (this.tokens >= 1) return 0;
    return Math.ceil(((1 - this.tokens) / this.rate) * 1000);
  }

  take(): void {
    this.tokens -= 1;
  }

  /** The server committed an op: speed up by one op per second. */
  recover(): void {
    this.rate = Math.min(this.opsPerSecond, this.rate + 1);
  }

  /** The server refused an op as RATE_LIMITED: slow down and send nothing for `pauseMs`. */
  throttle(now: number, pauseMs: number): void {
    if (now - this.lastCutAt > 200) {
      // One cut per burst of rejects: the later ones answer frames sent before the first arrived.
      this.rate = Math.max(5, this.rate / 2);
      this.tokens = Math.min(this.tokens, 0);
      this.lastCutAt = now;
    }
    this.holdUntil = Math.max(this.holdUntil, now + pauseMs);
  }
}
