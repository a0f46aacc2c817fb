import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { byTestId, flush, installCanvasHarness, json, q, renderCanvas } from '../test/canvasHarness';
import { node, proposal } from '../test/engineHarness';
import { ChatPanel } from './ChatPanel';

const NODES = [node('n-db', { content: '数据库端口是 5433', kind: 'config' }), node('n-far', { content: '远处的节点', x: 3000, y: 3000 })];

const PROPOSAL = proposal(7, {
  canvas_id: 7,
  summary: 'Add decision: "缓存改用 Memcached"',
  diff: { node: { id: 'p-node', content: '缓存改用 Memcached', kind: 'decision', x: 200, y: 100 }, fields: [] },
  op: { type: 'node.create', node: { id: 'p-node', content: '缓存改用 Memcached', x: 200, y: 100 } },
  agent_run_id: 'r1',
});

const REPORT = {
  budget: { total: 1000, system: 100, canvas: 500, summary: 100, recent: 200, question: 100 },
  layer_tokens: { system: 90, canvas: 40, summary: 0, recent: 0, question: 9 },
  total_tokens: 139,
  included: [{ node_id: 'n-db', handle: 'n1', rank: 1, reason: 'viewport', tokens: 12, placeholder: false }],
  excluded: [{ node_id: 'n-far', reason: 'out_of_range', detail: '' }],
  excluded_counts: { out_of_range: 1 },
  truncations: [],
  notes: [],
};

function answer(url: string): Response {
  if (url === '/api/llm/') return json({ configured: true, model: 'scripted', context_window: 16000, max_output_tokens: 1000, help: null });
  if (url === '/api/canvases/7/conversations/') return json([]);
  if (url.startsWith('/api/canvases/7/proposals/')) return json([PROPOSAL]);
  if (url === '/api/canvases/7/undo/') return json({ can_undo: false, can_redo: false, undo_revision: null, redo_revision: null });
  if (url === '/api/model-requests/41/')
    return json({
      id: 41,
      conversation_id: 12,
      message_id: 89,
      purpose: 'chat',
      model: 'scripted',
      base_url: 'http://x',
      strategy: 'canvas',
      messages: [
        { role: 'system', content: 'You are the assistant' },
        { role: 'user', content: '数据库端口是多少？' },
      ],
      tools: null,
      layer_tokens: REPORT.layer_tokens,
      budget: 1000,
      included_node_ids: ['n-db'],
      report: { budget: REPORT.budget, total_tokens: 139, included_nodes: REPORT.included, excluded_nodes: REPORT.excluded, excluded_counts: REPORT.excluded_counts },
      response_text: '端口是 5433。',
      tool_calls: null,
      usage: { prompt_tokens: 120, completion_tokens: 8, total_tokens: 128 },
      latency_ms: 840,
      error: null,
      created_at: '2026-11-30T12:00:00Z',
    });
  if (url === '/api/canvases/7/') return json({ id: 7, name: '发布计划', description: '', role: 'owner', revision: 3, member_count: 2, created_at: '', updated_at: '', agent_policy: { mode: 'propose', scope: 'all', protect_pinned: true, allow_archive: true } });
  return json({ error: { code: 'NOT_FOUND', message: 'nope', field: null } }, 404);
}

installCanvasHarness({
  fetch: answer,
  beforeEach: () => window.localStorage.setItem('canvasweb.chatOpen', '1'),
  afterEach: () => window.localStorage.removeItem('canvasweb.chatOpen'),
});

const render = () => renderCanvas('owner', { chat: <ChatPanel />, width: 1400, height: 900, nodes: NODES, edges: [], settleMs: 20 });

function type(el: HTMLTextAreaElement, text: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value')!.set!;
  setter.call(el, text);
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

// The first render in this file loads React Flow and the Markdown stack: slow on a loaded 2-core machine.
vi.setConfig({ testTimeout: 20_000 });

describe('ChatPanel', () => {
  it('sends a question with the viewport, streams the reply and opens Inspect', async () => {
    const sock = await render();
    expect(byTestId('chat-region')?.className).toContain('open');
    const input = byTestId('chat-input') as HTMLTextAreaElement;
    expect(byTestId('chat-char-count')?.textContent).toBe('0 / 8,000');
    await act(async () => type(input, '数据库端口是多少？'));
    expect(byTestId('chat-char-count')?.textContent).toBe('9 / 8,000');
    // Shift+Enter is a new line, not a send; Enter while an IME composes is not a send either.
    await act(async () => {
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, bubbles: true }));
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true }));
    });
    expect(sock.sentOfType('chat.send')).toHaveLength(0);
    await act(async () => {
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    });
    const [frame] = sock.sentOfType('chat.send');
    expect(frame).toMatchObject({ type: 'chat.send', conversation_id: null, text: '数据库端口是多少？' });
    expect(frame.viewport).toEqual(expect.objectContaining({ zoom: expect.any(Number), width: expect.any(Number), height: expect.any(Number) }));
    expect(byTestId('chat-pending')?.textContent).toContain('数据库端口是多少？');

    await act(async () => {
      sock.receive({
        type: 'chat.started',
        request_id: frame.request_id,
        conversation: { id: 12, canvas_id: 7, title: '数据库端口是多少？', summary: '', created_at: '', updated_at: '2026-11-30T12:00:00Z' },
        user_message: { id: 88, conversation_id: 12, role: 'user', source: 'user_input', content: '数据库端口是多少？', status: 'complete', error: null, token_count: 9, model_request_id: null, created_at: '' },
        assistant_message_id: 89,
        model_request_id: 41,
        context: REPORT,
        suggestions: [],
      });
      sock.receive({ type: 'chat.delta', message_id: 89, delta: '端口是 ' });
    });
    expect(byTestId('chat-stop')).not.toBeNull();
    expect(byTestId('chat-message-89')?.textContent).toContain('端口是');
    await act(async () => byTestId('chat-stop')!.click());
    expect(sock.sentOfType('chat.stop')).toEqual([{ type: 'chat.stop', message_id: 89 }]);
    await act(async () => {
      sock.receive({ type: 'chat.delta', message_id: 89, delta: '5433。' });
      sock.receive({ type: 'chat.done', request_id: frame.request_id, message: { id: 89, conversation_id: 12, role: 'assistant', source: 'assistant_reply', content: '端口是 5433。', status: 'complete', error: null, token_count: 8, model_request_id: 41, created_at: '' } });
    });
    expect(byTestId('conversation-title')?.textContent).toBe('数据库端口是多少？');
    expect(byTestId('chat-message-89')?.getAttribute('data-status')).toBe('complete');
    expect(byTestId('chat-send')).not.toBeNull();

    await act(async () => byTestId('chat-message-89')!.querySelector<HTMLButtonElement>('[data-testid="inspect-button"]')!.click());
    await flush(10);
    const dialog = byTestId('inspect-dialog') ?? (document.querySelector('[data-testid="inspect-dialog"]') as HTMLElement);
    expect(dialog.textContent).toContain('数据库端口是 5433');
    expect(dialog.querySelector('[data-testid="inspect-node-n-db"]')).not.toBeNull();
    expect(dialog.querySelector('[data-testid="inspect-usage"]')?.textContent).toContain('120 in');
  });

  it('stops a question still being prepared (before chat.started) with message_id null', async () => {
    const sock = await render();
    const input = byTestId('chat-input') as HTMLTextAreaElement;
    await act(async () => type(input, '把部署步骤写长一点'));
    await act(async () => {
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    });
    expect(sock.sentOfType('chat.send')).toHaveLength(1);
    expect(byTestId('chat-send')).toBeNull();
    await act(async () => byTestId('chat-stop')!.click());
    expect(sock.sentOfType('chat.stop')).toEqual([{ type: 'chat.stop', message_id: null }]);
  });

  it('shows a model error with the configuration help', async () => {
    const sock = await render();
    await act(async () => type(byTestId('chat-input') as HTMLTextAreaElement, 'hi'));
    await act(async () => byTestId('chat-send')!.click());
    const { request_id } = sock.sentOfType('chat.send')[0];
    await act(async () => {
      sock.receive({
        type: 'chat.started',
        request_id,
        conversation: { id: 3, canvas_id: 7, title: 'hi', summary: '', created_at: '', updated_at: '' },
        user_message: { id: 1, conversation_id: 3, role: 'user', source: 'user_input', content: 'hi', status: 'complete', error: null, token_count: 1, model_request_id: null, created_at: '' },
        assistant_message_id: 2,
        model_request_id: 5,
        context: REPORT,
        suggestions: [],
      });
      sock.receive({
        type: 'chat.error',
        request_id,
        message_id: 2,
        error: { code: 'MODEL_NOT_CONFIGURED', message: 'no model', field: null },
        message: { id: 2, conversation_id: 3, role: 'assistant', source: 'assistant_reply', content: '', status: 'error', error: 'no model', token_count: 0, model_request_id: 5, created_at: '' },
      });
    });
    const err = byTestId('chat-error')!;
    expect(err.getAttribute('data-code')).toBe('MODEL_NOT_CONFIGURED');
    expect(err.textContent).toContain('LLM_BASE_URL');
  });

  it('previews the context: highlights included nodes with their rank and dims the rest', async () => {
    const sock = await render();
    await act(async () => (byTestId('preview-toggle') as HTMLInputElement).click());
    const [frame] = sock.sentOfType('context.preview');
    expect(frame).toMatchObject({ type: 'context.preview', text: '', conversation_id: null });
    await act(async () => sock.receive({ type: 'context.preview', request_id: frame.request_id, ...REPORT }));
    const db = byTestId('node-n-db')!;
    expect(db.getAttribute('data-context')).toBe('included');
    expect(db.querySelector('[data-testid="preview-rank"]')?.textContent).toBe('1');
    const far = byTestId('node-n-far')!;
    expect(far.getAttribute('data-context')).toBe('excluded');
    expect(far.className).toContain('dimmed');
    expect(byTestId('preview-included-count')?.textContent).toBe('1');
    // typing schedules a new preview after the quiet period
    await act(async () => type(byTestId('chat-input') as HTMLTextAreaElement, '端口'));
    expect(sock.sentOfType('context.preview')).toHaveLength(1);
    await flush(300);
    expect(sock.sentOfType('context.preview').map((f) => f.text)).toEqual(['', '端口']);
    await act(async () => (byTestId('preview-toggle') as HTMLInputElement).click());
    expect(byTestId('node-n-db')!.getAttribute('data-context')).toBeNull();
  });

  it('draws pending proposals as ghosts and drops them when decided', async () => {
    const sock = await render();
    await flush(20);
    expect(byTestId('ghost-node-7')?.textContent).toContain('缓存改用 Memcached');
    expect(byTestId('tab-proposals-count')?.textContent).toBe('1');
    await act(async () => sock.receive({ type: 'agent.proposal', action: 'rejected', proposal: { ...PROPOSAL, status: 'rejected', decided_by: { id: 1, username: 'alice' } } }));
    expect(byTestId('ghost-node-7')).toBeNull();
    expect(byTestId('tab-proposals-count')).toBeNull();
  });
  it('restores a reply with Markdown, node links, agent chips and decided suggestions, and Ask again sends a new turn', async () => {
    const base = vi.mocked(fetch).getMockImplementation()!;
    vi.stubGlobal('CSS', { escape: (v: string) => v }); // jsdom has no CSS.escape (the search flash uses it)
    const suggestion = (id: number, status: string, content: string) => ({
      id, conversation_id: 12, message_id: 88, content, kind: 'fact', subject: '', label: '', value: '', previous_value: null, reason: '',
      sensitivity: 'public', status, action: 'create', source: 'rules', supersede_node_id: null, supersede_content: null,
      conflict_node_id: null, conflict_content: null, note: null, warnings: [], created_node_id: status === 'accepted' ? 'n-db' : null,
    });
    vi.mocked(fetch).mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (url === '/api/canvases/7/conversations/') return json([{ id: 12, canvas_id: 7, title: '端口', summary: '', created_at: '', updated_at: '2026-11-30T12:00:00Z' }]);
      if (url === '/api/conversations/12/messages/')
        return json([
          { id: 88, conversation_id: 12, role: 'user', source: 'user_input', content: '哪个端口？<b>x</b>', status: 'complete', error: null, token_count: 5, model_request_id: null, created_at: '',
            suggestions: [suggestion(301, 'accepted', '端口改为 6543'), suggestion(302, 'dismissed', '缓存 TTL 90 秒'), suggestion(303, 'pending', '每周五发布')] },
          { id: 89, conversation_id: 12, role: 'assistant', source: 'assistant_reply', content: '端口是 **6543**[n1]，旧值 [n7] 已废弃。`[n1]`', status: 'complete', error: null, token_count: 9,
            model_request_id: 41, created_at: '', handles: { n1: 'n-db', n7: 'n-gone' },
            agent_actions: [{ conversation_id: 12, message_id: 89, round: 1, call_id: 'c1', tool: 'add_node', outcome: 'proposed', error: null, proposal_id: 7, revision: null }] },
        ]);
      if (url === '/api/conversations/12/suggestions/') return json([]);
      return base(input, init);
    });
    const sock = await render();
    await flush(20);
    const reply = byTestId('chat-message-89')!;
    expect(reply.querySelector('strong')?.textContent).toBe('6543');
    // the user's text stays plain: no Markdown or HTML
    const question = byTestId('chat-message-88')!;
    expect(question.querySelector('b')).toBeNull();
    expect(question.querySelector('.bubble')?.getAttribute('dir')).toBe('auto');
    expect(question.textContent).toContain('<b>x</b>');
    // n1 is on the canvas; n7's node is not (plain text); the one in code stays code
    const refs = reply.querySelectorAll<HTMLButtonElement>('[data-testid="node-ref"]');
    expect([...refs].map((b) => b.dataset.nodeId)).toEqual(['n-db']);
    expect(reply.textContent).toContain('[n7]');
    expect(reply.querySelector('code')?.textContent).toBe('[n1]');
    await act(async () => refs[0].click());
    await flush(20);
    const card = q('.react-flow__node[data-id="n-db"]')!;
    expect(card.classList.contains('selected')).toBe(true);
    expect(card.dataset.searchFlash).toBe('1');
    // chips from the list: the agent's proposal, the decided suggestions under the question, the pending one below
    expect(reply.querySelector('[data-testid="agent-action"]')?.getAttribute('data-outcome')).toBe('proposed');
    expect(byTestId('captured-301')?.getAttribute('data-status')).toBe('accepted');
    expect(byTestId('captured-302')?.getAttribute('data-status')).toBe('dismissed');
    expect(byTestId('captured-303')).toBeNull();
    expect(byTestId('suggestion-303')).not.toBeNull();
    // Ask again sends the turn's question as a new turn (not only into the input)
    await act(async () => reply.querySelector<HTMLButtonElement>('[data-testid="ask-again"]')!.click());
    expect(sock.sentOfType('chat.send')).toEqual([expect.objectContaining({ conversation_id: 12, text: '哪个端口？<b>x</b>' })]);
    expect((byTestId('chat-input') as HTMLTextAreaElement).value).toBe('');
    expect(byTestId('chat-pending')?.textContent).toContain('哪个端口？');
    expect(reply.querySelector('[data-testid="ask-again"]')).toBeNull(); // no second send while one is on its way
  });
});
