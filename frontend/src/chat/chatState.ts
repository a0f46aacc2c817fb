// The chat panel's state as a pure reducer, fed by REST loads and by the
// chat frames the canvas socket carries (docs/protocol.md, "Chat"):
// chat.started → chat.delta* → chat.done | chat.error, plus agent.action.
//
// The parts live in state/: types, frames (the socket's chat frames), messages,
// suggestions, views. This module is what the panel imports.

import type { Suggestion } from '../api/types';
import i18n from 'i18next';
import { applyChatFrame } from './state/frames';
import { findMessage, upsertMessage } from './state/messages';
import { pendingOnce, withCaptured } from './state/suggestions';
import type { ChatAction, ChatState } from './state/types';

export type { ActiveStream, AgentActionEvent, ChatAction, ChatErrorInfo, ChatNotice, ChatState, PendingQuestion } from './state/types';
export { INITIAL_CHAT } from './state/types';
export { messageErrorInfo, messageErrorText } from './state/messages';
export { pendingOnce } from './state/suggestions';
export { charCount, handlesFor, MAX_QUESTION_CHARS, questionFor, visibleMessages } from './state/views';

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
      return applyChatFrame(state, action.frame);
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
