// The top of the chat panel: the conversation picker and its list, "New", and the no-model banner.
import type { Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import type { Conversation, LLMStatus } from '../api/types';
import { ChevronRightIcon, PlusIcon } from '../components/Icons';
import { timeAgo } from '../lib/format';
import { ConfigHelp } from './ChatMessage';
import type { ChatAction } from './chatState';

export function ConversationHeader({
  conversations,
  activeId,
  llm,
  listOpen,
  setListOpen,
  dispatch,
  onNew,
}: {
  conversations: Conversation[] | null;
  activeId: number | null;
  llm: LLMStatus | null;
  listOpen: boolean;
  setListOpen(open: boolean | ((v: boolean) => boolean)): void;
  dispatch: Dispatch<ChatAction>;
  onNew(): void;
}) {
  const { t } = useTranslation('chat');
  const active = conversations?.find((c) => c.id === activeId) ?? null;
  return (
    <>
      <div className="chat-head">
        <button
          className="conv-picker"
          onClick={() => setListOpen((v) => !v)}
          aria-expanded={listOpen}
          data-testid="conversation-picker"
          title={t('conversationsHint')}
        >
          <span className="conv-title" data-testid="conversation-title">
            {active ? active.title || t('untitled') : t('newConversation')}
          </span>
          <ChevronRightIcon size={13} className={`conv-caret${listOpen ? ' open' : ''}`} />
        </button>
        <button className="btn btn-small" onClick={onNew} disabled={activeId === null && !listOpen} data-testid="new-conversation" title={t('startNew')}>
          <PlusIcon size={13} /> {t('new')}
        </button>
      </div>

      {listOpen && (
        <div className="conv-list" data-testid="conversation-list">
          {conversations === null && <div className="muted small pad">{t('common:loading')}</div>}
          {conversations?.length === 0 && <div className="muted small pad">{t('noConversations')}</div>}
          <ul>
            {(conversations ?? []).map((c) => (
              <li key={c.id}>
                <button
                  className={`conv-item${c.id === activeId ? ' active' : ''}`}
                  onClick={() => {
                    dispatch({ type: 'select', id: c.id });
                    setListOpen(false);
                  }}
                  data-testid={`conversation-item-${c.id}`}
                >
                  <span className="conv-item-title">{c.title || t('untitled')}</span>
                  <span className="muted small">{timeAgo(c.updated_at)}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}

      {llm && !llm.configured && (
        <div className="chat-banner" data-testid="no-model-banner">
          <strong>{t('noModel')}</strong> {t('noModelHint')}
          <details>
            <summary>{t('howToConfigure')}</summary>
            <ConfigHelp status={llm} />
          </details>
        </div>
      )}
    </>
  );
}
