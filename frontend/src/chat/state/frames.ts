// The chat frames the canvas socket carries (docs/protocol.md, "Chat"), folded into the state:
// chat.started → chat.delta* → chat.done | chat.error, plus chat.suggestions and agent.action.

import type { ChatMessage, ContextReport, Conversation, Suggestion } from '../../api/types';
import i18n from 'i18next';
import { findMessage, placeholderAssistant, upsertConversation, upsertMessage } from './messages';
import { dropCaptured, markCaptured, pendingOnce, replacedBy, withCaptured } from './suggestions';
import type { AgentActionEvent, ChatErrorInfo, ChatState } from './types';

export function applyChatFrame(state: ChatState, f: { type: string; [k: string]: unknown }): ChatState {
  switch (f.type) {
    case 'chat.started': {
      const conv = f.conversation as Conversation;
      const user = f.user_message as ChatMessage;
      const assistantId = Number(f.assistant_message_id);
      let messages = upsertMessage(state.messages[conv.id], user);
      messages = upsertMessage(messages, placeholderAssistant(assistantId, conv.id, (f.model_request_id ?? null) as number | null));
      const mine = state.pending && (f.request_id == null || f.request_id === state.pending.requestId);
      const activeId = mine && state.pending?.conversationId === null && state.activeId === null ? conv.id : state.activeId;
      const incoming = pendingOnce((f.suggestions ?? []) as Suggestion[]);
      return {
        ...state,
        conversations: upsertConversation(state.conversations, conv),
        activeId,
        messages: { ...state.messages, [conv.id]: messages },
        pending: mine ? null : state.pending,
        streaming: { requestId: (f.request_id ?? null) as string | null, conversationId: conv.id, messageId: assistantId },
        suggestions: [...replacedBy(state.suggestions, incoming), ...incoming],
        contexts: f.context ? { ...state.contexts, [assistantId]: f.context as ContextReport } : state.contexts,
        captured: withCaptured(state.captured, (f.suggestions ?? []) as Suggestion[]),
      };
    }
    case 'chat.suggestions': {
      // The model's extraction replaced the rules' suggestions of one message.
      const removed = new Set<number>((f.removed_suggestion_ids ?? []) as number[]);
      const incoming = pendingOnce((f.suggestions ?? []) as Suggestion[]);
      const captured = withCaptured(dropCaptured(state.captured, removed), (f.suggestions ?? []) as Suggestion[]);
      return { ...state, captured, suggestions: [...state.suggestions.filter((s) => !removed.has(s.id) && !incoming.some((n) => n.id === s.id)), ...incoming] };
    }
    case 'chat.delta': {
      const id = Number(f.message_id);
      const found = findMessage(state, id);
      if (!found || typeof f.delta !== 'string') return state;
      const m = { ...found.message, content: found.message.content + f.delta, status: 'streaming' };
      return { ...state, messages: { ...state.messages, [found.conversationId]: upsertMessage(state.messages[found.conversationId], m) } };
    }
    case 'chat.done': {
      const m = f.message as ChatMessage | undefined;
      if (!m) return { ...state, streaming: null };
      const streaming = state.streaming && state.streaming.messageId === m.id ? null : state.streaming;
      return {
        ...state,
        streaming,
        messages: { ...state.messages, [m.conversation_id]: upsertMessage(state.messages[m.conversation_id], m) },
      };
    }
    case 'chat.error': {
      const error = f.error as { code?: string; message?: string } | null | undefined;
      const err: ChatErrorInfo = { code: error?.code ?? 'ERROR', message: error?.message ?? i18n.t('chat:replyFailedText') };
      const msgId = (f.message_id ?? (f.message as { id?: number } | null | undefined)?.id ?? null) as number | null;
      if (msgId === null) {
        // The question itself was refused: nothing was stored.
        const pending = state.pending && (f.request_id == null || f.request_id === state.pending.requestId) ? state.pending : null;
        return {
          ...state,
          pending: pending ? null : state.pending,
          notices: [
            ...state.notices,
            {
              id: state.nextNoticeId,
              conversationId: pending ? pending.conversationId : state.activeId,
              code: err.code,
              message: err.message,
              text: pending?.text,
            },
          ],
          nextNoticeId: state.nextNoticeId + 1,
        };
      }
      let messages = state.messages;
      const full = f.message as ChatMessage | undefined;
      if (full && typeof full.conversation_id === 'number' && full.id != null) {
        messages = { ...messages, [full.conversation_id]: upsertMessage(messages[full.conversation_id], { ...full, status: full.status || 'error' }) };
      } else {
        const found = findMessage(state, msgId);
        if (found) {
          messages = {
            ...messages,
            [found.conversationId]: upsertMessage(messages[found.conversationId], { ...found.message, status: 'error', error: err.message }),
          };
        }
      }
      const streaming = state.streaming && state.streaming.messageId === msgId ? null : state.streaming;
      return { ...state, messages, streaming, errors: { ...state.errors, [msgId]: err } };
    }
    case 'agent.action': {
      const ev = f as unknown as AgentActionEvent;
      const key = Number(ev.message_id);
      if (!Number.isFinite(key)) return state;
      const list = state.agentActions[key] ?? [];
      if (list.some((a) => a.call_id === ev.call_id && a.round === ev.round && ev.call_id)) return state;
      // The agent proposed (or made) the change a captured suggestion offered: only one shows.
      const dup = new Set<number>(((f.dismissed_suggestion_ids ?? []) as number[]).map(Number));
      const suggestions = dup.size ? state.suggestions.filter((s) => !dup.has(s.id)) : state.suggestions;
      const captured = dup.size ? markCaptured(state.captured, dup, 'dismissed') : state.captured;
      return { ...state, suggestions, captured, agentActions: { ...state.agentActions, [key]: [...list, ev] } };
    }
    default:
      return state;
  }
}
