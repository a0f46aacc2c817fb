// The chat panel's state as a pure reducer, fed by REST loads and by the
// chat frames the canvas socket carries (docs/protocol.md, "Chat"):
// chat.started → chat.delta* → chat.done | chat.error, plus agent.action.

import type { ChatAgentAction, ChatMessage, ContextReport, Conversation, Suggestion } from '../api/types';
import i18n from 'i18next';

export interface ChatErrorInfo {
  code: string;
  message: string;
}

/** A question refused before it was stored (BUSY, INVALID, not connected…). */
export interface ChatNotice {
  id: number;
  conversationId: number | null;
  code: string;
  message: string;
  /** the refused question, so the input can offer it again */
  text?: string;
}

export type AgentActionEvent = ChatAgentAction;

export interface PendingQuestion {
  requestId: string;
  conversationId: number | null;
  text: string;
}

export interface ActiveStream {
  requestId: string | null;
  conversationId: number;
  messageId: number;
}

export interface ChatState {
  conversations: Conversation[] | null;
  /** the open conversation; null = a new one (created by the next question) */
  activeId: number | null;
  messages: Record<number, ChatMessage[]>;
  /** question sent, chat.started not yet received */
  pending: PendingQuestion | null;
  streaming: ActiveStream | null;
  /** error codes of failed replies (the REST message only keeps the text) */
  errors: Record<number, ChatErrorInfo>;
  notices: ChatNotice[];
  suggestions: Suggestion[];
  /** the context report of the latest turn, by assistant message id */
  contexts: Record<number, ContextReport>;
  agentActions: Record<number, AgentActionEvent[]>;
  /** every suggestion captured from a user message, by that message's id, in its current state */
  captured: Record<number, Suggestion[]>;
  nextNoticeId: number;
}

export const INITIAL_CHAT: ChatState = {
  conversations: null,
  activeId: null,
  messages: {},
  pending: null,
  streaming: null,
  errors: {},
  notices: [],
  suggestions: [],
  contexts: {},
  agentActions: {},
  captured: {},
  nextNoticeId: 1,
};

export type ChatAction =
  | { type: 'conversationsLoaded'; conversations: Conversation[] }
  | { type: 'select'; id: number | null }
  | { type: 'messagesLoaded'; conversationId: number; messages: ChatMessage[] }
  | { type: 'sent'; requestId: string; conversationId: number | null; text: string }
  | { type: 'notSent'; conversationId: number | null; text: string; code: string; message: string }
  | { type: 'frame'; frame: { type: string; [k: string]: unknown } }
  | { type: 'connectionLost' }
  | { type: 'suggestionUpdated'; suggestion: Suggestion }
  | { type: 'suggestionsLoaded'; conversationId: number; suggestions: Suggestion[] }
  | { type: 'dismissNotice'; id: number };

function upsertConversation(list: Conversation[] | null, c: Conversation): Conversation[] {
  const rest = (list ?? []).filter((x) => x.id !== c.id);
  return [c, ...rest];
}

function upsertMessage(list: ChatMessage[] | undefined, m: ChatMessage): ChatMessage[] {
  const cur = list ?? [];
  const i = cur.findIndex((x) => x.id === m.id);
  if (i < 0) return [...cur, m].sort((a, b) => a.id - b.id);
  const next = cur.slice();
  next[i] = m;
  return next;
}

function placeholderAssistant(id: number, conversationId: number, modelRequestId: number | null): ChatMessage {
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

function findMessage(state: ChatState, messageId: number): { conversationId: number; message: ChatMessage } | null {
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

function onFrame(state: ChatState, f: { type: string; [k: string]: unknown }): ChatState {
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
        suggestions: [...state.suggestions.filter((s) => !incoming.some((n) => n.id === s.id)), ...incoming],
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

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'conversationsLoaded': {
      // Keep conversations we learned about from chat.started but the list does not have yet.
      const known = new Set(action.conversations.map((c) => c.id));
      const extra = (state.conversations ?? []).filter((c) => !known.has(c.id));
      const all = [...extra, ...action.conversations].sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : b.id - a.id));
      return { ...state, conversations: all };
    }
    case 'select':
      return { ...state, activeId: action.id };
    case 'messagesLoaded': {
      // A reply still streaming is newer than what the server had stored.
      const cur = state.messages[action.conversationId] ?? [];
      const live = state.streaming && state.streaming.conversationId === action.conversationId ? state.streaming.messageId : null;
      let next = action.messages.slice().sort((a, b) => a.id - b.id);
      if (live !== null) {
        const mine = cur.find((m) => m.id === live);
        if (mine) next = upsertMessage(next, mine);
      }
      // Chips and suggestions come with the list (restored on reload); a frame seen live is kept when the
      // server sent none for that message.
      const agentActions = { ...state.agentActions };
      let captured = state.captured;
      const embedded: Suggestion[] = [];
      for (const m of action.messages) {
        if (m.agent_actions?.length) agentActions[m.id] = m.agent_actions;
        if (m.suggestions) {
          captured = { ...captured, [m.id]: m.suggestions };
          embedded.push(...m.suggestions);
        }
      }
      const hasSuggestions = action.messages.some((m) => m.suggestions !== undefined);
      const suggestions = hasSuggestions
        ? [...state.suggestions.filter((s) => s.conversation_id !== action.conversationId), ...pendingOnce(embedded)]
        : state.suggestions;
      return { ...state, agentActions, captured, suggestions, messages: { ...state.messages, [action.conversationId]: next } };
    }
    case 'sent':
      return { ...state, pending: { requestId: action.requestId, conversationId: action.conversationId, text: action.text } };
    case 'notSent':
      return {
        ...state,
        notices: [
          ...state.notices,
          { id: state.nextNoticeId, conversationId: action.conversationId, code: action.code, message: action.message, text: action.text },
        ],
        nextNoticeId: state.nextNoticeId + 1,
      };
    case 'frame':
      return onFrame(state, action.frame);
    case 'connectionLost': {
      if (!state.streaming && !state.pending) return state;
      let messages = state.messages;
      const errors = { ...state.errors };
      if (state.streaming) {
        const found = findMessage(state, state.streaming.messageId);
        if (found) {
          messages = {
            ...messages,
            [found.conversationId]: upsertMessage(messages[found.conversationId], {
              ...found.message,
              status: 'error',
              error: i18n.t('chat:droppedWhileStreaming'),
            }),
          };
          errors[found.message.id] = { code: 'CONNECTION_LOST', message: i18n.t('chat:droppedWhileStreamingHint') };
        }
      }
      const notices = state.pending
        ? [
            ...state.notices,
            {
              id: state.nextNoticeId,
              conversationId: state.pending.conversationId,
              code: 'CONNECTION_LOST',
              message: i18n.t('chat:droppedBeforeConfirmed'),
              text: state.pending.text,
            },
          ]
        : state.notices;
      return { ...state, messages, errors, streaming: null, pending: null, notices, nextNoticeId: state.pending ? state.nextNoticeId + 1 : state.nextNoticeId };
    }
    case 'suggestionsLoaded': {
      // The server's list is the truth for that conversation (restored on reload, earlier values retired).
      const others = state.suggestions.filter((s) => s.conversation_id !== action.conversationId);
      return { ...state, captured: withCaptured(state.captured, action.suggestions), suggestions: [...others, ...pendingOnce(action.suggestions)] };
    }
    case 'suggestionUpdated': {
      const s = action.suggestion;
      return { ...state, captured: withCaptured(state.captured, [s]), suggestions: s.status === 'pending' ? state.suggestions.map((x) => (x.id === s.id ? s : x)) : state.suggestions.filter((x) => x.id !== s.id) };
    }
    case 'dismissNotice':
      return { ...state, notices: state.notices.filter((n) => n.id !== action.id) };
    default:
      return state;
  }
}

/** `captured` with each suggestion put (or replaced) under its message. */
function withCaptured(captured: Record<number, Suggestion[]>, list: Suggestion[]): Record<number, Suggestion[]> {
  if (!list.length) return captured;
  const next = { ...captured };
  for (const s of list) {
    const cur = next[s.message_id] ?? [];
    next[s.message_id] = cur.some((x) => x.id === s.id) ? cur.map((x) => (x.id === s.id ? s : x)) : [...cur, s].sort((a, b) => a.id - b.id);
  }
  return next;
}

function dropCaptured(captured: Record<number, Suggestion[]>, ids: Set<number>): Record<number, Suggestion[]> {
  if (!ids.size) return captured;
  const next: Record<number, Suggestion[]> = {};
  for (const [k, list] of Object.entries(captured)) next[Number(k)] = list.filter((s) => !ids.has(s.id));
  return next;
}

function markCaptured(captured: Record<number, Suggestion[]>, ids: Set<number>, status: Suggestion['status']): Record<number, Suggestion[]> {
  const next: Record<number, Suggestion[]> = {};
  for (const [k, list] of Object.entries(captured)) next[Number(k)] = list.map((s) => (ids.has(s.id) ? { ...s, status } : s));
  return next;
}

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

/** Pending suggestions, each fact once (capture can report one fact twice, e.g. as a correction and a value). */
export function pendingOnce(list: Suggestion[]): Suggestion[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const key = `${s.message_id}|${s.content.trim()}|${s.supersede_node_id ?? ''}`;
    if (s.status !== 'pending' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
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
