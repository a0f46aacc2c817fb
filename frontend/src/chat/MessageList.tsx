// The messages of the open conversation, the question waiting for chat.started, and the notices of
// refused questions; keeps the newest message in view while a reply streams unless the user scrolled up.
import { useLayoutEffect, useRef, type Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatMessage, LLMStatus } from '../api/types';
import { SparklesIcon } from '../components/Icons';
import { Message, NoticeBox } from './ChatMessage';
import { questionFor, type ChatAction, type ChatState, type PendingQuestion } from './chatState';

export function MessageList({
  state,
  messages,
  pending,
  llm,
  loading,
  dispatch,
  isNodeVisible,
  onFocusNode,
  onInspect,
  onAskAgain,
  onRestore,
}: {
  state: ChatState;
  messages: ChatMessage[];
  pending: PendingQuestion | null;
  llm: LLMStatus | null;
  loading: boolean;
  dispatch: Dispatch<ChatAction>;
  isNodeVisible(nodeId: string): boolean;
  onFocusNode(nodeId: string): void;
  onInspect(requestId: number): void;
  /** send this question again as a new turn (null while a reply is on its way) */
  onAskAgain: ((question: string) => void) | null;
  onRestore(text: string): void;
}) {
  const { t } = useTranslation('chat');
  const activeId = state.activeId;
  const listRef = useRef<HTMLOListElement>(null);
  const stickToBottom = useRef(true);
  const notices = state.notices.filter((n) => n.conversationId === activeId || n.conversationId === null);
  const streamingId = state.streaming?.messageId;
  const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant')?.id;

  useLayoutEffect(() => {
    stickToBottom.current = true;
  }, [activeId, pending]);

  // Keep the newest message in view while streaming, unless the user scrolled up.
  const lastContent = messages.length ? messages[messages.length - 1].content : '';
  useLayoutEffect(() => {
    const el = listRef.current;
    if (el && stickToBottom.current) el.scrollTop = el.scrollHeight;
  }, [messages.length, lastContent, pending, notices.length, activeId]);

  const onScroll = () => {
    const el = listRef.current;
    if (el) stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  };

  return (
    <ol className="chat-messages" ref={listRef} onScroll={onScroll} data-testid="chat-messages">
      {messages.length === 0 && !pending && (
        <li className="chat-empty">
          <SparklesIcon size={20} />
          <div className="chat-empty-title">{t('emptyTitle')}</div>
          <div className="muted small">{t('emptyHint')}</div>
          {loading && <div className="muted small">{t('loadingMessages')}</div>}
        </li>
      )}
      {messages.map((m) => {
        // Ask again on the newest reply, and on any failed one: the turn's own question, resent as a new turn.
        const question = m.role === 'assistant' && onAskAgain && (m.id === lastAssistant || m.status === 'error') ? questionFor(messages, m.id) : null;
        return (
          <Message
            key={m.id}
            m={m}
            error={state.errors[m.id]}
            streaming={streamingId === m.id}
            context={state.contexts[m.id]}
            actions={state.agentActions[m.id]}
            captured={m.role === 'user' ? state.captured[m.id] : undefined}
            status={llm}
            isNodeVisible={isNodeVisible}
            onFocusNode={onFocusNode}
            onInspect={onInspect}
            onRetry={question && onAskAgain ? () => onAskAgain(question) : undefined}
          />
        );
      })}
      {pending && (
        <li className="chat-msg user pending" data-testid="chat-pending">
          <div className="bubble" dir="auto">
            {pending.text}
          </div>
        </li>
      )}
      {notices.map((n) => (
        <NoticeBox
          key={n.id}
          n={n}
          status={llm}
          onDismiss={() => dispatch({ type: 'dismissNotice', id: n.id })}
          onRestore={() => {
            onRestore(n.text ?? '');
            dispatch({ type: 'dismissNotice', id: n.id });
          }}
        />
      ))}
    </ol>
  );
}
