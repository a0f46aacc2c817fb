// One pending timer the engine can re-arm and cancel (each part of the engine owns its own).

export class Timer {
  private handle: ReturnType<typeof setTimeout> | ReturnType<typeof setInterval> | null = null;

  get active(): boolean {
    return this.handle !== null;
  }

  /** Run `fn` once after `ms`; the timer counts as inactive again before `fn` runs. */
  once(ms: number, fn: () => void): void {
    this.handle = setTimeout(() => {
      this.handle = null;
      fn();
    }, ms);
  }

  /** Run `fn` every `ms` until cleared. */
  every(ms: number, fn: () => void): void {
    this.handle = setInterval(fn, ms);
  }

  clear(): void {
    const t = this.handle;
    if (t !== null) {
      clearTimeout(t as ReturnType<typeof setTimeout>);
      clearInterval(t as ReturnType<typeof setInterval>);
      this.handle = null;
    }
  }
}
