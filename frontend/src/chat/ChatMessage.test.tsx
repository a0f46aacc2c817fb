import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import i18n from 'i18next';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage, LLMStatus } from '../api/types';
import { Message } from './ChatMessage';

// A reply stored while no model was configured, as GET …/messages/ returns it after a reload.
const STORED: ChatMessage = {
  id: 6,
  conversation_id: 3,
  role: 'assistant',
  source: 'assistant_reply',
  content: '',
  status: 'error',
  error: "No model is configured. Set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) — see README 'Connecting a model'. The canvas, context preview and benchmarks work without one.",
  error_code: 'MODEL_NOT_CONFIGURED',
  token_count: 0,
  model_request_id: null,
  created_at: '2026-11-30T13:56:41Z',
  handles: {},
};
const NO_MODEL: LLMStatus = { configured: false, model: null, context_window: 16000, max_output_tokens: 1024, help: "Set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) and restart; see README 'Connecting a model'." };

let root: Root | null = null;
let host: HTMLDivElement | null = null;

afterEach(async () => {
  await act(async () => root?.unmount());
  host?.remove();
  root = host = null;
  await i18n.changeLanguage('en');
});

async function render(m: ChatMessage): Promise<HTMLElement> {
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  await act(async () =>
    root!.render(
      <ul>
        <Message m={m} streaming={false} status={NO_MODEL} isNodeVisible={() => true} onFocusNode={() => {}} onInspect={() => {}} />
      </ul>,
    ),
  );
  return host;
}

describe('a stored failed reply', () => {
  it('renders the no-model card from error_code, not the raw server text', async () => {
    const el = await render(STORED);
    const card = el.querySelector('[data-testid="chat-error"]')!;
    expect(card.getAttribute('data-code')).toBe('MODEL_NOT_CONFIGURED');
    expect(card.textContent).toContain('No model is configured');
    expect(card.querySelector('.config-help')).not.toBeNull();
    expect(card.textContent).not.toContain('benchmarks work without one');
    expect(el.querySelector('[data-testid="assistant-text"]')).toBeNull();
  });

  it('in Chinese shows the same card without English server text', async () => {
    await i18n.changeLanguage('zh-Hans');
    const el = await render(STORED);
    const card = el.querySelector('[data-testid="chat-error"]')!;
    expect(card.getAttribute('data-code')).toBe('MODEL_NOT_CONFIGURED');
    expect(card.textContent).toContain('尚未配置模型');
    expect(card.textContent).toContain('请在服务器上设置 LLM_BASE_URL');
    expect(card.textContent).not.toMatch(/restart|README|No model/);
    // The config snippet's comments too; variable names, URLs and product names stay.
    const snippet = card.querySelector('pre')!.textContent!;
    expect(snippet).toContain('LLM_BASE_URL=http://127.0.0.1:8080/v1');
    expect(snippet).toContain('或者本地兼容 OpenAI 的服务');
    expect(snippet).not.toMatch(/or a local|e\.g\.|llama\.cpp server/);
  });

  it('other stored codes keep their own title', async () => {
    const el = await render({ ...STORED, error: 'The model did not answer within 60 s.', error_code: 'MODEL_TIMEOUT' });
    expect(el.querySelector('[data-testid="chat-error"]')!.getAttribute('data-code')).toBe('MODEL_TIMEOUT');
  });
});
