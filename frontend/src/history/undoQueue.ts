// Undo/redo presses, applied one at a time in the order they were made: each
// request waits for the previous answer, so ten quick Ctrl+Z are ten undos,
// and a redo pressed right after an undo runs after that undo has landed.

export type UndoKind = 'undo' | 'redo';

export interface UndoQueueOptions<R> {
  /** performs one undo or redo; rejects on failure */
  perform(kind: UndoKind): Promise<R>;
  /** true when the failure means there is nothing left of this kind (drop queued presses of it) */
  isExhausted(err: unknown): boolean;
  /** called once the queue has drained, with every result and error of the burst, in order */
  onDrained(outcomes: UndoOutcome<R>[]): void;
  /** presses beyond this many waiting are ignored (a held key should not queue hundreds) */
  maxWaiting?: number;
  /** a press within this many ms of the queue draining joins the same burst (keys pressed
   * slower than the server answers are still one burst) */
  burstGapMs?: number;
}

export type UndoOutcome<R> = { kind: UndoKind; ok: true; result: R } | { kind: UndoKind; ok: false; error: unknown };

export class UndoQueue<R> {
  private waiting: UndoKind[] = [];
  private running = false;
  private outcomes: UndoOutcome<R>[] = [];
  private listeners = new Set<() => void>();
  private reportTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly opts: UndoQueueOptions<R>) {}

  /** presses not yet answered (the one in flight included) */
  get size(): number {
    return this.waiting.length + (this.running ? 1 : 0);
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  push(kind: UndoKind): void {
    if (this.waiting.length >= (this.opts.maxWaiting ?? 50)) return;
    this.waiting.push(kind);
    if (this.reportTimer !== null) {
      clearTimeout(this.reportTimer);
      this.reportTimer = null;
    }
    this.emit();
    if (!this.running) void this.drain();
  }

  private emit() {
    for (const fn of this.listeners) fn();
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length) {
      const kind = this.waiting.shift() as UndoKind;
      this.emit();
      try {
        this.outcomes.push({ kind, ok: true, result: await this.opts.perform(kind) });
      } catch (error) {
        this.outcomes.push({ kind, ok: false, error });
        // Nothing left to undo: the presses of that kind still waiting would fail the same way.
        if (this.opts.isExhausted(error)) this.waiting = this.waiting.filter((k) => k !== kind);
      }
    }
    this.running = false;
    this.emit();
    const gap = this.opts.burstGapMs ?? 0;
    if (gap <= 0) this.report();
    else this.reportTimer = setTimeout(() => this.report(), gap);
  }

  private report(): void {
    this.reportTimer = null;
    const outcomes = this.outcomes;
    this.outcomes = [];
    this.opts.onDrained(outcomes);
  }
}
