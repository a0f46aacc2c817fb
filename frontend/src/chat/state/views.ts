// Read-only views of the chat state and of the text typed into the composer.

import type { ChatMessage, ContextReport } from '../../api/types';
import type { ChatState } from './types';

/** The question of the turn an assistant message answers (the user message just before it). */
export function questionFor(messages: ChatMessage[], assistantId: number): string | null {
  const i = messages.findIndex((m) => m.id === assistantId);
  for (let j = i - 1; j >= 0; j--) if (messages[j].role === 'user') return messages[j].content;
  return null;
}

/** Handle → node id for a reply: the turn's context report while it streams, the stored map after. */
export function handlesFor(m: ChatMessage, context?: ContextReport): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of context?.included ?? []) if (n.handle && n.node_id) out[n.handle] = n.node_id;
  return { ...out, ...(m.handles ?? {}) };
}

/** Messages of a conversation as the panel lists them (tool results are folded into the reply). */
export function visibleMessages(state: ChatState, conversationId: number | null): ChatMessage[] {
  if (conversationId === null) return [];
  return (state.messages[conversationId] ?? []).filter((m) => m.role === 'user' || m.role === 'assistant');
}

/** Code-point length (the server counts characters the same way, so CJK and emoji count once). */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export const MAX_QUESTION_CHARS = 8000;
