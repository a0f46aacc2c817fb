// Helpers over the message lists: insert or replace in id order, find a message, its error text.

import type { ChatMessage, Conversation } from '../../api/types';
import i18n from 'i18next';
import type { ChatErrorInfo, ChatState } from './types';

export function upsertConversation(list: Conversation[] | null, c: Conversation): Conversation[] {
  const rest = (list ?? []).filter((x) => x.id !== c.id);
  return [c, ...rest];
}

export function upsertMessage(list: ChatMessage[] | undefined, m: ChatMessage): ChatMessage[] {
  const cur = list ?? [];
  const i = cur.findIndex((x) => x.id === m.id);
  if (i < 0) return [...cur, m].sort((a, b) => a.id - b.id);
  const next = cur.slice();
  next[i] = m;
  return next;
}

export function placeholderAssistant(id: number, conversationId: number, modelRequestId: number | null): ChatMessage {
  return {
    id,
    conversation_id: conversationId,
    role: 'assistant',
    source: 'assistant_reply',
    content: '',
    status: 'streaming',
    error: null,
    token_count: 0,
    model_request_id: modelRequestId,
    created_at: new Date().toISOString(),
  };
}

export function findMessage(state: ChatState, messageId: number): { conversationId: number; message: ChatMessage } | null {
  const hint = state.streaming && state.streaming.messageId === messageId ? state.streaming.conversationId : null;
  const ids = hint !== null ? [hint] : Object.keys(state.messages).map(Number);
  for (const cid of ids) {
    const m = state.messages[cid]?.find((x) => x.id === messageId);
    if (m) return { conversationId: cid, message: m };
  }
  return null;
}

function errorText(err: ChatMessage['error']): string {
  if (!err) return '';
  if (typeof err === 'string') return err;
  return err.message ?? '';
}

export function messageErrorText(m: ChatMessage, info?: ChatErrorInfo): string {
  return info?.message || errorText(m.error) || i18n.t('chat:replyFailedText');
}

/** The error card of a failed reply: the live frame's error, else the stored `error_code` (after a reload). */
export function messageErrorInfo(m: ChatMessage, live?: ChatErrorInfo): ChatErrorInfo {
  if (live) return live;
  const stored = typeof m.error === 'object' && m.error ? m.error.code : undefined;
  return { code: m.error_code || stored || 'ERROR', message: messageErrorText(m) };
}
