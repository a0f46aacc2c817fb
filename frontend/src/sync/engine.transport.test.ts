// Frames the engine only carries: chat, context previews, agent frames, request errors.
import { describe, expect, it, vi } from 'vitest';
import { fakeTimersPerTest } from '../test/fakeTimers';
import type { ServerFrame } from './engine';
import { setup } from '../test/engineHarness';

fakeTimersPerTest();

describe('SyncEngine chat transport', () => {
  it('passes chat, preview and agent frames to frame listeners without touching the document', () => {
    const h = setup();
    const frames: ServerFrame[] = [];
    const off = h.engine.onFrame((f) => frames.push(f));
    const before = h.engine.getSnapshot();
    h.sock().receive({ type: 'chat.delta', message_id: 89, delta: '端口是 ' });
    h.sock().receive({ type: 'context.preview', request_id: 'p-1', included: [] });
    h.sock().receive({ type: 'agent.proposal', action: 'created', proposal: { id: 1 } });
    expect(frames.map((f) => f.type)).toEqual(['chat.delta', 'context.preview', 'agent.proposal']);
    expect(h.engine.getSnapshot()).toBe(before);
    off();
    h.sock().receive({ type: 'chat.done', message: {} });
    expect(frames).toHaveLength(3);
  });

  it('routes error frames that answer a request to listeners, others to notices', () => {
    const h = setup();
    const frames: ServerFrame[] = [];
    h.engine.onFrame((f) => frames.push(f));
    h.sock().receive({ type: 'error', request_id: 'p-2', error: { code: 'NOT_FOUND', message: 'no such conversation', field: 'conversation_id' } });
    expect(frames).toHaveLength(1);
    expect(h.notices).toHaveLength(0);
    h.sock().receive({ type: 'error', error: { code: 'BAD_MESSAGE', message: 'bad', field: null } });
    expect(frames).toHaveLength(1);
    expect(h.notices.map((n) => n.code)).toEqual(['BAD_MESSAGE']);
  });

  it('sends chat frames only while connected, never queues them, and refuses op frames', () => {
    const h = setup();
    expect(h.engine.send({ type: 'chat.send', request_id: 'r-1', conversation_id: null, text: '你好', viewport: null })).toBe(true);
    expect(h.sock().sentOfType('chat.send')).toEqual([{ type: 'chat.send', request_id: 'r-1', conversation_id: null, text: '你好', viewport: null }]);
    expect(h.engine.send({ type: 'op', client_op_id: 'x', op: { type: 'node.delete', id: 'a' } })).toBe(false);
    expect(h.engine.send({ type: 'chat.send', text: 'x'.repeat(70_000) })).toBe(false);
    h.sock().serverClose(1006);
    expect(h.engine.send({ type: 'chat.stop', message_id: 1 })).toBe(false);
    vi.advanceTimersByTime(1000);
    h.sock().open();
    // after reconnecting nothing chat-related is replayed
    expect(h.sock().sentOfType('chat.stop')).toHaveLength(0);
    expect(h.engine.send({ type: 'chat.stop', message_id: 1 })).toBe(true);
  });

  it('a throwing frame listener does not break the engine', () => {
    const h = setup();
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const seen: string[] = [];
    h.engine.onFrame(() => {
      throw new Error('boom');
    });
    h.engine.onFrame((f) => seen.push(f.type));
    h.sock().receive({ type: 'chat.started', conversation: { id: 1 } });
    expect(seen).toEqual(['chat.started']);
    h.sock().receive({ type: 'change', revision: 11, changes: [] });
    expect(h.engine.getSnapshot().revision).toBe(11);
    spy.mockRestore();
  });
});
