import { describe, expect, it } from 'vitest';
import type { ChatMessage, Conversation } from '../api/types';
import { charCount, chatReducer, INITIAL_CHAT, visibleMessages, type ChatState } from './chatState';

const conv = (id: number, extra: Partial<Conversation> = {}): Conversation => ({
  id,
  canvas_id: 3,
  title: `对话 ${id}`,
  summary: '',
  created_at: '2026-11-30T12:00:00Z',
  updated_at: `2026-11-30T12:0${id}:00Z`,
  ...extra,
});

const msg = (id: number, conversationId: number, role: 'user' | 'assistant', content: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  id,
  conversation_id: conversationId,
  role,
  source: role === 'user' ? 'user_input' : 'assistant_reply',
  content,
  status: 'complete',
  error: null,
  token_count: 3,
  model_request_id: role === 'assistant' ? 41 : null,
  created_at: '2026-11-30T12:00:00Z',
  ...extra,
});

const CONTEXT = {
  budget: { total: 1000, system: 100, canvas: 500, summary: 100, recent: 200, question: 100 },
  layer_tokens: { system: 90, canvas: 200, summary: 0, recent: 0, question: 9 },
  total_tokens: 299,
  included: [{ node_id: 'n-1', handle: 'n1', rank: 1, reason: 'anchor', tokens: 20, placeholder: false }],
  excluded: [{ node_id: 'n-2', reason: 'superseded', detail: '' }],
  excluded_counts: { superseded: 1 },
  truncations: [],
  notes: [],
};

function started(requestId: string | null, conversationId: number, userId: number, assistantId: number, extra: Record<string, unknown> = {}) {
  return {
    type: 'chat.started',
    request_id: requestId,
    conversation: conv(conversationId),
    user_message: msg(userId, conversationId, 'user', '数据库端口是多少？'),
    assistant_message_id: assistantId,
    model_request_id: 41,
    context: CONTEXT,
    suggestions: [],
    ...extra,
  };
}

function run(state: ChatState, ...frames: Record<string, unknown>[]): ChatState {
  return frames.reduce((s, f) => chatReducer(s, { type: 'frame', frame: f as { type: string } }), state);
}

describe('chat stream reducer', () => {
  it('streams a reply into a new conversation: started → deltas → done', () => {
    let s = chatReducer(INITIAL_CHAT, { type: 'sent', requestId: 'r-1', conversationId: null, text: '数据库端口是多少？' });
    expect(s.pending?.text).toBe('数据库端口是多少？');
    s = run(s, started('r-1', 12, 88, 89));
    expect(s.pending).toBeNull();
    expect(s.activeId).toBe(12);
    expect(s.conversations?.map((c) => c.id)).toEqual([12]);
    expect(s.streaming).toEqual({ requestId: 'r-1', conversationId: 12, messageId: 89 });
    expect(s.contexts[89].included[0].node_id).toBe('n-1');
    s = run(s, { type: 'chat.delta', message_id: 89, delta: '端口是 ' }, { type: 'chat.delta', message_id: 89, delta: '5433。' });
    const streamingMsg = visibleMessages(s, 12).find((m) => m.id === 89)!;
    expect(streamingMsg.content).toBe('端口是 5433。');
    expect(streamingMsg.status).toBe('streaming');
    s = run(s, { type: 'chat.done', request_id: 'r-1', message: msg(89, 12, 'assistant', '端口是 5433。') });
    expect(s.streaming).toBeNull();
    const list = visibleMessages(s, 12);
    expect(list.map((m) => [m.id, m.role, m.status])).toEqual([
      [88, 'user', 'complete'],
      [89, 'assistant', 'complete'],
    ]);
  });

  it('keeps the open conversation when a reply for another one starts', () => {
    let s = chatReducer(INITIAL_CHAT, { type: 'conversationsLoaded', conversations: [conv(1), conv(2)] });
    s = chatReducer(s, { type: 'select', id: 2 });
    s = chatReducer(s, { type: 'sent', requestId: 'r-2', conversationId: 2, text: 'hi' });
    s = run(s, started('r-2', 2, 10, 11));
    expect(s.activeId).toBe(2);
    expect(s.conversations?.[0].id).toBe(2);
  });

  it('a stopped reply keeps its text', () => {
    let s = run(INITIAL_CHAT, started(null, 5, 1, 2), { type: 'chat.delta', message_id: 2, delta: 'partial' });
    s = run(s, { type: 'chat.done', message: msg(2, 5, 'assistant', 'partial', { status: 'stopped' }) });
    expect(visibleMessages(s, 5)[1]).toMatchObject({ content: 'partial', status: 'stopped' });
    expect(s.streaming).toBeNull();
  });

  it('chat.error on a reply marks the message and keeps the error code', () => {
    let s = run(INITIAL_CHAT, started('r-3', 5, 1, 2));
    s = run(s, {
      type: 'chat.error',
      request_id: 'r-3',
      message_id: 2,
      error: { code: 'MODEL_TIMEOUT', message: 'The model did not answer within 60 s.', field: null },
      message: msg(2, 5, 'assistant', '', { status: 'error', error: 'The model did not answer within 60 s.' }),
    });
    expect(s.streaming).toBeNull();
    expect(s.errors[2]).toEqual({ code: 'MODEL_TIMEOUT', message: 'The model did not answer within 60 s.' });
    expect(visibleMessages(s, 5)[1].status).toBe('error');
    // the question is kept
    expect(visibleMessages(s, 5)[0].content).toBe('数据库端口是多少？');
  });

  it('a refused question becomes a notice with the text to restore', () => {
    let s = chatReducer(INITIAL_CHAT, { type: 'sent', requestId: 'r-4', conversationId: null, text: 'again' });
    s = run(s, { type: 'chat.error', request_id: 'r-4', message_id: null, error: { code: 'BUSY', message: 'a reply is still streaming', field: null } });
    expect(s.pending).toBeNull();
    expect(s.notices).toEqual([{ id: 1, conversationId: null, code: 'BUSY', message: 'a reply is still streaming', text: 'again' }]);
    s = chatReducer(s, { type: 'dismissNotice', id: 1 });
    expect(s.notices).toEqual([]);
  });

  it('a dropped connection ends the stream with an error', () => {
    let s = run(INITIAL_CHAT, started('r-5', 5, 1, 2), { type: 'chat.delta', message_id: 2, delta: 'half' });
    s = chatReducer(s, { type: 'connectionLost' });
    expect(s.streaming).toBeNull();
    expect(s.errors[2].code).toBe('CONNECTION_LOST');
    expect(visibleMessages(s, 5)[1]).toMatchObject({ content: 'half', status: 'error' });
  });

  it('loading messages does not drop a reply that is still streaming', () => {
    let s = run(INITIAL_CHAT, started('r-6', 5, 1, 2), { type: 'chat.delta', message_id: 2, delta: 'live text' });
    s = chatReducer(s, { type: 'messagesLoaded', conversationId: 5, messages: [msg(1, 5, 'user', 'q')] });
    expect(visibleMessages(s, 5).map((m) => m.content)).toEqual(['q', 'live text']);
  });

  it('collects suggestions and drops them once accepted or dismissed', () => {
    const sug = { id: 7, conversation_id: 5, message_id: 1, content: '数据库端口改成 5433', kind: 'config', subject: 'port', value: '5433', reason: 'change X to Y', status: 'pending', supersede_node_id: 'n-9', created_node_id: null };
    const twin = { ...sug, id: 8, kind: 'correction' };
    let s = run(INITIAL_CHAT, started('r-7', 5, 1, 2, { suggestions: [sug, twin] }));
    expect(s.suggestions.map((x) => x.id)).toEqual([7]);
    s = chatReducer(s, { type: 'suggestionUpdated', suggestion: { ...sug, status: 'accepted', created_node_id: 'n-10' } as never });
    expect(s.suggestions).toEqual([]);
  });

  it('a fact said again replaces the older pending suggestion; another fact or conversation does not', () => {
    const first = { id: 7, conversation_id: 5, message_id: 1, content: 'Launch date: 3月20日', kind: 'decision', subject: 'launch', value: '3月20日', reason: 'correction', status: 'pending', supersede_node_id: 'n-9', created_node_id: null };
    const other = { ...first, id: 8, content: 'Venue: Hall B', supersede_node_id: null };
    const elsewhere = { ...first, id: 9, conversation_id: 6 };
    let s = run(INITIAL_CHAT, started('r-8', 5, 1, 2, { suggestions: [first, other] }), started('r-9', 6, 3, 4, { suggestions: [elsewhere] }));
    const again = { ...first, id: 10, message_id: 11 };
    s = run(s, started('r-10', 5, 11, 12, { suggestions: [again] }));
    expect(s.suggestions.map((x) => x.id).sort((a, b) => a - b)).toEqual([8, 9, 10]);
  });

  it('records agent actions per assistant message, once per call', () => {
    const action = { type: 'agent.action', conversation_id: 5, message_id: 2, round: 1, call_id: 'c1', tool: 'add_node', outcome: 'proposed', error: null, proposal_id: 3, revision: null };
    const s = run(INITIAL_CHAT, action, action);
    expect(s.agentActions[2]).toHaveLength(1);
    expect(s.agentActions[2][0].proposal_id).toBe(3);
  });

  it('hides tool messages and counts characters like the server (code points)', () => {
    let s = chatReducer(INITIAL_CHAT, {
      type: 'messagesLoaded',
      conversationId: 1,
      messages: [msg(2, 1, 'assistant', 'a'), { ...msg(3, 1, 'user', 'x'), role: 'tool' }, msg(1, 1, 'user', 'q')],
    });
    expect(visibleMessages(s, 1).map((m) => m.id)).toEqual([1, 2]);
    expect(charCount('数据库😀')).toBe(4);
    s = chatReducer(s, { type: 'select', id: null });
    expect(visibleMessages(s, null)).toEqual([]);
  });
});
