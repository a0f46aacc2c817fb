// The shapes of the chat panel's state and of the actions its reducer takes.

import type { ChatAgentAction, ChatMessage, ContextReport, Conversation, Suggestion } from '../../api/types';

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
