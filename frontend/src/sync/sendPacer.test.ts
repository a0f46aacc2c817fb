import { describe, expect, it } from 'vitest';
import { SendPacer } from './sendPacer';

/** Send until the bucket is empty; how many went. */
function drain(pacer: SendPacer): number {
  let sent = 0;
  while (pacer.waitForToken() === 0) {
    pacer.take();
    sent++;
  }
  return sent;
}

describe('SendPacer', () => {
  it('spends its tokens, then says how long until the next one', () => {
    const pacer = new SendPacer(4);
    pacer.refill(1000);
    for (let i = 0; i < 4; i++) {
      expect(pacer.waitForToken()).toBe(0);
      pacer.take();
    }
    // 4 ops per second: the next token is 250 ms away.
    expect(pacer.waitForToken()).toBe(250);
    pacer.refill(1250);
    expect(pacer.waitForToken()).toBe(0);
  });

  it('halves its rate once per burst of RATE_LIMITED and holds for the pause', () => {
    const pacer = new SendPacer(40);
    pacer.throttle(10_000, 300);
    pacer.throttle(10_050, 300); // same burst: no second cut, but the hold grows
    expect(pacer.heldFor(10_000)).toBe(350);
    expect(pacer.heldFor(10_350)).toBe(0);
    pacer.refill(11_350);
    // 1 s at the halved rate of 20/s refills at most 20 tokens.
    expect(drain(pacer)).toBe(20);
  });

  it('never slows below 5 ops per second and recovers one op per second per commit', () => {
    const pacer = new SendPacer(8);
    for (let i = 0; i < 5; i++) pacer.throttle(i * 1000, 1);
    pacer.refill(100_000);
    expect(pacer.waitForToken()).toBe(0);
    pacer.recover();
    pacer.recover();
    pacer.recover(); // 5 → 8, the ceiling
    pacer.recover();
    pacer.refill(200_000);
    expect(drain(pacer)).toBe(8);
  });
});
