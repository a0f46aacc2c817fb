// Context preview: while the toggle is on, every pan, zoom or keystroke
// schedules one `context.preview` frame after a quiet period (~250 ms). Only
// the answer to the latest request is used; older answers are dropped.
import type { ContextReport, PresenceViewport } from '../api/types';

export interface PreviewInput {
  viewport: PresenceViewport | null;
  text: string;
  conversationId: number | null;
}

export interface PreviewSchedulerOptions {
  /** sends one frame; false when the socket is not open */
  send(frame: { type: 'context.preview'; request_id: string; conversation_id: number | null; text: string; viewport: PresenceViewport | null }): boolean;
  delayMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/** Rounded so sub-pixel jitter does not cause a new request. */
function key(input: PreviewInput): string {
  const v = input.viewport;
  const vp = v ? [Math.round(v.x), Math.round(v.y), Math.round(v.zoom * 100) / 100, Math.round(v.width), Math.round(v.height)] : null;
  return JSON.stringify([vp, input.text, input.conversationId]);
}

export class PreviewScheduler {
  private readonly delayMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private timer: unknown = null;
  private latest: PreviewInput | null = null;
  private lastSentKey: string | null = null;
  private counter = 0;
  private awaiting: string | null = null;
  private enabled = false;

  constructor(private readonly opts: PreviewSchedulerOptions) {
    this.delayMs = opts.delayMs ?? 250;
    this.setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = opts.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  /** the request id whose answer is expected (null when none is outstanding) */
  get pendingRequestId(): string | null {
    return this.awaiting;
  }

  enable(input: PreviewInput) {
    this.enabled = true;
    this.lastSentKey = null;
    this.latest = input;
    this.flush();
  }

  disable() {
    this.enabled = false;
    this.cancel();
    this.awaiting = null;
    this.lastSentKey = null;
  }

  /** Something changed: (re)start the quiet period. */
  update(input: PreviewInput) {
    this.latest = input;
    if (!this.enabled) return;
    this.cancel();
    this.timer = this.setTimer(() => {
      this.timer = null;
      this.flush();
    }, this.delayMs);
  }

  /** Send now (if anything changed since the last request). */
  flush(): boolean {
    this.cancel();
    if (!this.enabled || !this.latest) return false;
    const k = key(this.latest);
    if (k === this.lastSentKey) return false;
    const requestId = `p-${++this.counter}`;
    const ok = this.opts.send({
      type: 'context.preview',
      request_id: requestId,
      conversation_id: this.latest.conversationId,
      text: this.latest.text,
      viewport: this.latest.viewport,
    });
    if (ok) {
      this.lastSentKey = k;
      this.awaiting = requestId;
    }
    return ok;
  }

  /** Forget what was sent (e.g. after a reconnect or a canvas change) so the next flush resends. */
  invalidate() {
    this.lastSentKey = null;
  }

  /**
   * An incoming context.preview (or error) frame: returns the report when it
   * answers the latest request, otherwise null (stale answers are dropped).
   */
  accept(frame: { type: string; request_id?: string | null; [k: string]: unknown }): ContextReport | null {
    if (!this.enabled || frame.type !== 'context.preview' || !frame.request_id || frame.request_id !== this.awaiting) return null;
    this.awaiting = null;
    const { type: _t, request_id: _r, ...report } = frame;
    return report as unknown as ContextReport;
  }

  /** true if this error frame answers the outstanding request */
  acceptError(frame: { type: string; request_id?: string | null }): boolean {
    if (frame.type !== 'error' || !frame.request_id || frame.request_id !== this.awaiting) return false;
    this.awaiting = null;
    return true;
  }

  private cancel() {
    if (this.timer !== null) {
      this.clearTimer(this.timer);
      this.timer = null;
    }
  }
}
