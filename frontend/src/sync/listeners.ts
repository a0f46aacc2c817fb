// A set of subscribers; each call works on a copy, so a listener may unsubscribe while called.

export class Listeners<T extends unknown[] = []> {
  private readonly set = new Set<(...args: T) => void>();

  /** Add a listener; returns its unsubscribe function. */
  add(listener: (...args: T) => void): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }

  /** The current listeners, copied. */
  all(): ((...args: T) => void)[] {
    return [...this.set];
  }

  call(...args: T): void {
    for (const l of this.all()) l(...args);
  }

  clear(): void {
    this.set.clear();
  }
}
