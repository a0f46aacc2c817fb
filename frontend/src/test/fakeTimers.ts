import { afterEach, beforeEach, vi } from 'vitest';

/** Every test of the calling file runs on vitest's fake timers (the engine's timers advance only when told). */
export function fakeTimersPerTest(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
