import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PreviewScheduler, type PreviewSchedulerOptions } from './preview';

type SentPreview = Parameters<PreviewSchedulerOptions['send']>[0];

const VP = { x: 0, y: 0, zoom: 1, width: 1280, height: 800 };

describe('context preview debounce', () => {
  let sent: SentPreview[];
  let online: boolean;
  let s: PreviewScheduler;

  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    online = true;
    s = new PreviewScheduler({ send: (f) => (online ? (sent.push(f), true) : false), delayMs: 250 });
  });
  afterEach(() => vi.useRealTimers());

  it('sends nothing while disabled', () => {
    s.update({ viewport: VP, text: 'x', conversationId: null });
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual([]);
  });

  it('sends at once when enabled, then one frame per quiet period', () => {
    s.enable({ viewport: VP, text: '', conversationId: null });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: 'context.preview', request_id: 'p-1', text: '', conversation_id: null, viewport: VP });
    // a pan: many viewport updates within 250 ms → one frame with the last one
    for (let i = 1; i <= 10; i++) {
      s.update({ viewport: { ...VP, x: i * 40 }, text: '', conversationId: null });
      vi.advanceTimersByTime(50);
    }
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(250);
    expect(sent).toHaveLength(2);
    expect(sent[1].viewport?.x).toBe(400);
    expect(sent[1].request_id).toBe('p-2');
  });

  it('typing is debounced too, and unchanged input is not resent', () => {
    s.enable({ viewport: VP, text: '', conversationId: 4 });
    s.update({ viewport: VP, text: '数', conversationId: 4 });
    vi.advanceTimersByTime(100);
    s.update({ viewport: VP, text: '数据', conversationId: 4 });
    vi.advanceTimersByTime(249);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent.map((f) => f.text)).toEqual(['', '数据']);
    s.update({ viewport: { ...VP, x: 0.2 }, text: '数据', conversationId: 4 }); // sub-pixel jitter
    vi.advanceTimersByTime(300);
    expect(sent).toHaveLength(2);
  });

  it('uses only the answer to the latest request', () => {
    s.enable({ viewport: VP, text: '', conversationId: null });
    s.update({ viewport: { ...VP, x: 500 }, text: '', conversationId: null });
    vi.advanceTimersByTime(250);
    const report = { budget: { total: 10 }, layer_tokens: {}, total_tokens: 1, included: [], excluded: [], excluded_counts: {}, truncations: [], notes: [] };
    expect(s.accept({ type: 'context.preview', request_id: 'p-1', ...report })).toBeNull();
    const got = s.accept({ type: 'context.preview', request_id: 'p-2', ...report });
    expect(got).toMatchObject({ total_tokens: 1 });
    expect((got as Record<string, unknown> | null)?.type).toBeUndefined();
    // answered: a repeat is ignored
    expect(s.accept({ type: 'context.preview', request_id: 'p-2', ...report })).toBeNull();
  });

  it('retries after going offline, and stops when disabled', () => {
    online = false;
    s.enable({ viewport: VP, text: '', conversationId: null });
    expect(sent).toHaveLength(0);
    online = true;
    expect(s.flush()).toBe(true);
    expect(sent).toHaveLength(1);
    s.invalidate();
    expect(s.flush()).toBe(true);
    expect(sent).toHaveLength(2);
    s.update({ viewport: { ...VP, x: 9 }, text: '', conversationId: null });
    s.disable();
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(2);
    expect(s.accept({ type: 'context.preview', request_id: 'p-2' })).toBeNull();
  });

  it('matches error answers to the outstanding request', () => {
    s.enable({ viewport: VP, text: '', conversationId: 99 });
    expect(s.acceptError({ type: 'error', request_id: 'p-0' })).toBe(false);
    expect(s.acceptError({ type: 'error', request_id: 'p-1' })).toBe(true);
    expect(s.pendingRequestId).toBeNull();
  });
});
