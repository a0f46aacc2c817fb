// The chat panel (CanvasPage `chat` slot): conversations, streamed replies
// over the canvas socket, Stop, Inspect, context preview; suggestion chips live in SuggestionList,
// messages and error boxes in ChatMessage.
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, type KeyboardEvent } from 'react';
import { api, errorMessage } from '../api/client';
import type { ContextReport, LLMStatus } from '../api/types';
import { useCanvasActions, useEngineState } from '../canvas/context';
import { useOverlay } from '../canvas/overlay';
import { ChevronRightIcon, PlusIcon, SendIcon, SparklesIcon, StopIcon } from '../components/Icons';
import { isComposing, timeAgo } from '../lib/format';
import { toast } from '../lib/toast';
import { ConfigHelp, Message, NoticeBox } from './ChatMessage';
import { charCount, chatReducer, INITIAL_CHAT, MAX_QUESTION_CHARS, visibleMessages } from './chatState';
import { ContextPreviewBox } from './ContextPreviewBox';
import { InspectDialog } from './InspectDialog';
import { PreviewScheduler } from './preview';
import { SuggestionList } from './SuggestionList';
import { useTranslation } from 'react-i18next';
import { localizedApiMessage } from '../i18n/errors';
import { formatNumber as num } from '../i18n/format';

export function ChatPanel() {
  const { t } = useTranslation('chat');
  const { engine, overlay: overlayStore, canvasId, focusNode } = useCanvasActions();
  const engineState = useEngineState(engine);
  const overlay = useOverlay(overlayStore);
  const [state, dispatch] = useReducer(chatReducer, INITIAL_CHAT);
  const [draft, setDraft] = useState('');
  const [llm, setLlm] = useState<LLMStatus | null>(null);
  const [listOpen, setListOpen] = useState(false);
  const [inspectId, setInspectId] = useState<number | null>(null);
  const [previewOn, setPreviewOn] = useState(false);
  const [preview, setPreview] = useState<ContextReport | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [loadingMessages, setLoadingMessages] = useState(false);
  const counter = useRef(0);
  const listRef = useRef<HTMLOListElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const stickToBottom = useRef(true);
  const online = engineState.status === 'online';
  const activeId = state.activeId;

  // ------------------------------------------------------------ loading

  useEffect(() => {
    let alive = true;
    api
      .llmStatus()
      .then((s) => alive && setLlm(s))
      .catch(() => undefined);
    api
      .conversations(canvasId)
      .then((list) => {
        if (!alive) return;
        const arr = Array.isArray(list) ? list : [];
        dispatch({ type: 'conversationsLoaded', conversations: arr });
        if (arr.length) dispatch({ type: 'select', id: arr[0].id });
      })
      .catch((err) => alive && toast.error(errorMessage(err), t('loadConversationsFailed')));
    return () => {
      alive = false;
    };
  }, [canvasId]);

  const loadSuggestions = useCallback(async (id: number) => {
    try {
      const list = await api.suggestions(id);
      dispatch({ type: 'suggestionsLoaded', conversationId: id, suggestions: Array.isArray(list) ? list : [] });
    } catch {
      // the chat works without them; the next turn brings fresh ones
    }
  }, []);

  const loadMessages = useCallback(async (id: number) => {
    setLoadingMessages(true);
    try {
      const list = await api.messages(id);
      dispatch({ type: 'messagesLoaded', conversationId: id, messages: Array.isArray(list) ? list : [] });
      void loadSuggestions(id);
    } catch (err) {
      toast.error(errorMessage(err), t('loadMessagesFailed'));
    } finally {
      setLoadingMessages(false);
    }
  }, []);

  useEffect(() => {
    if (activeId !== null && !state.messages[activeId]) void loadMessages(activeId);
    stickToBottom.current = true;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [activeId]);

  // ------------------------------------------------------------ socket frames

  const schedulerRef = useRef<PreviewScheduler | null>(null);
  if (!schedulerRef.current) schedulerRef.current = new PreviewScheduler({ send: (f) => engine.send(f) });
  const scheduler = schedulerRef.current;

  useEffect(
    () =>
      engine.onFrame((f) => {
        if (f.type.startsWith('chat.') || f.type === 'agent.action') {
          dispatch({ type: 'frame', frame: f });
          // A correction may retire a value still waiting as a suggestion: the server's list is the truth.
          const conv = (f as { conversation?: { id?: number } }).conversation?.id;
          if (f.type === 'chat.started' && typeof conv === 'number') void loadSuggestions(conv);
          return;
        }
        if (f.type === 'context.preview') {
          const report = scheduler.accept(f);
          if (report) {
            setPreview(report);
            setPreviewError(null);
            overlayStore.setPreview(report);
          }
          return;
        }
        if (f.type === 'error' && scheduler.acceptError(f)) setPreviewError(f.error ? localizedApiMessage(f.error.code, f.error.message) : t('previewFailed'));
      }),
    [engine, scheduler, overlayStore, loadSuggestions],
  );

  // A dropped socket ends any stream; after reconnecting, reload what the server kept.
  const wasOnline = useRef(online);
  const lostDuringStream = useRef<number | null>(null);
  useEffect(() => {
    if (wasOnline.current && !online) {
      if (state.streaming || state.pending) lostDuringStream.current = state.streaming?.conversationId ?? state.pending?.conversationId ?? activeId;
      dispatch({ type: 'connectionLost' });
    }
    if (!wasOnline.current && online) {
      if (lostDuringStream.current !== null) {
        void loadMessages(lostDuringStream.current);
        lostDuringStream.current = null;
      }
      scheduler.invalidate();
      if (scheduler.isEnabled) scheduler.flush();
    }
    wasOnline.current = online;
  }, [online, state.streaming, state.pending, activeId, loadMessages, scheduler]);

  // History panels link to conversations.
  useEffect(() => {
    const req = overlay.conversationRequest;
    if (!req) return;
    const mine = state.conversations?.some((c) => c.id === req.id);
    if (mine) {
      dispatch({ type: 'select', id: req.id });
      setListOpen(false);
    } else toast.info(t('privateConversation'), t('conversationNumber', { id: req.id }));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [overlay.conversationRequest]);

  // ------------------------------------------------------------ preview

  const previewInput = useCallback(
    () => ({ viewport: overlayStore.getViewport(), text: draft.trim(), conversationId: activeId }),
    [overlayStore, draft, activeId],
  );

  useEffect(() => {
    if (previewOn) scheduler.update(previewInput());
  }, [previewOn, previewInput, scheduler]);

  useEffect(() => {
    if (!previewOn) return;
    return overlayStore.onViewport((viewport) => scheduler.update({ ...previewInput(), viewport }));
  }, [previewOn, overlayStore, previewInput, scheduler]);

  // Canvas edits change what would be sent.
  useEffect(() => {
    if (!previewOn) return;
    scheduler.invalidate();
    scheduler.update(previewInput());
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [engineState.revision]);

  const togglePreview = (on: boolean) => {
    setPreviewOn(on);
    if (on) {
      scheduler.enable(previewInput());
    } else {
      scheduler.disable();
      setPreview(null);
      setPreviewError(null);
      overlayStore.setPreview(null);
    }
  };

  useEffect(
    () => () => {
      scheduler.disable();
      overlayStore.setPreview(null);
    },
    [scheduler, overlayStore],
  );

  // ------------------------------------------------------------ sending

  const streaming = state.streaming;
  const busy = !!state.pending || !!streaming;
  const count = charCount(draft);
  const tooLong = count > MAX_QUESTION_CHARS;

  const send = useCallback(
    (text?: string) => {
      const question = (text ?? draft).trim();
      if (!question || busy) return;
      if (charCount(question) > MAX_QUESTION_CHARS) {
        toast.error(t('limitToast', { limit: num(MAX_QUESTION_CHARS) }), t('tooLongTitle'));
        return;
      }
      const requestId = `r-${engine.sessionId}-${++counter.current}`;
      const ok = engine.send({ type: 'chat.send', request_id: requestId, conversation_id: activeId, text: question, viewport: overlayStore.getViewport() });
      if (!ok) {
        dispatch({ type: 'notSent', conversationId: activeId, text: question, code: 'NOT_CONNECTED', message: t('notConnected') });
        return;
      }
      dispatch({ type: 'sent', requestId, conversationId: activeId, text: question });
      if (text === undefined) setDraft('');
      stickToBottom.current = true;
    },
    [draft, busy, engine, activeId, overlayStore],
  );

  const stop = () => {
    if (streaming) engine.send({ type: 'chat.stop', message_id: streaming.messageId });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !isComposing(e)) {
      e.preventDefault();
      if (!tooLong) send();
    } else if (e.key === 'Escape' && streaming) {
      stop();
    }
  };

  // Grow the input with its content (up to a limit).
  useLayoutEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(180, el.scrollHeight + 2)}px`;
  }, [draft]);

  // ------------------------------------------------------------ view

  const messages = visibleMessages(state, activeId);
  const pendingHere = state.pending && state.pending.conversationId === activeId ? state.pending : null;
  const notices = state.notices.filter((n) => n.conversationId === activeId || n.conversationId === null);
  const suggestions = state.suggestions.filter((s) => s.status === 'pending' && (activeId === null || s.conversation_id === activeId));
  const active = state.conversations?.find((c) => c.id === activeId) ?? null;
  const lastQuestion = useMemo(() => [...messages].reverse().find((m) => m.role === 'user')?.content, [messages]);

  // Keep the newest message in view while streaming, unless the user scrolled up.
  const lastContent = messages.length ? messages[messages.length - 1].content : '';
  useLayoutEffect(() => {
    const el = listRef.current;
    if (el && stickToBottom.current) el.scrollTop = el.scrollHeight;
  }, [messages.length, lastContent, pendingHere, notices.length, activeId]);

  const onScroll = () => {
    const el = listRef.current;
    if (el) stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  };

  const focusFromList = (id: string) => {
    if (engine.getSnapshot().doc.nodes.has(id)) focusNode(id);
  };

  return (
    <div className="chat-panel" data-testid="chat-panel">
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
        <button
          className="btn btn-small"
          onClick={() => {
            dispatch({ type: 'select', id: null });
            setListOpen(false);
            inputRef.current?.focus();
          }}
          disabled={activeId === null && !listOpen}
          data-testid="new-conversation"
          title={t('startNew')}
        >
          <PlusIcon size={13} /> {t('new')}
        </button>
      </div>

      {listOpen && (
        <div className="conv-list" data-testid="conversation-list">
          {state.conversations === null && <div className="muted small pad">{t('common:loading')}</div>}
          {state.conversations?.length === 0 && <div className="muted small pad">{t('noConversations')}</div>}
          <ul>
            {(state.conversations ?? []).map((c) => (
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

      <ol className="chat-messages" ref={listRef} onScroll={onScroll} data-testid="chat-messages">
        {messages.length === 0 && !pendingHere && (
          <li className="chat-empty">
            <SparklesIcon size={20} />
            <div className="chat-empty-title">{t('emptyTitle')}</div>
            <div className="muted small">
              {t('emptyHint')}
            </div>
            {loadingMessages && <div className="muted small">{t('loadingMessages')}</div>}
          </li>
        )}
        {messages.map((m) => (
          <Message
            key={m.id}
            m={m}
            error={state.errors[m.id]}
            streaming={streaming?.messageId === m.id}
            context={state.contexts[m.id]}
            actions={state.agentActions[m.id]}
            status={llm}
            onInspect={setInspectId}
            onRetry={lastQuestion ? () => setDraft(lastQuestion) : undefined}
          />
        ))}
        {pendingHere && (
          <li className="chat-msg user pending" data-testid="chat-pending">
            <div className="bubble">{pendingHere.text}</div>
          </li>
        )}
        {notices.map((n) => (
          <NoticeBox
            key={n.id}
            n={n}
            status={llm}
            onDismiss={() => dispatch({ type: 'dismissNotice', id: n.id })}
            onRestore={() => {
              setDraft(n.text ?? '');
              dispatch({ type: 'dismissNotice', id: n.id });
              inputRef.current?.focus();
            }}
          />
        ))}
      </ol>

      <SuggestionList suggestions={suggestions} dispatch={dispatch} />

      {previewOn && <ContextPreviewBox preview={preview} error={previewError} online={online} doc={engineState.doc} onFocus={focusFromList} />}

      <div className={`chat-composer${tooLong ? ' over' : ''}`}>
        <textarea
          ref={inputRef}
          value={draft}
          rows={2}
          placeholder={online ? t('placeholder') : t('placeholderOffline')}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          aria-label={t('message')}
          data-testid="chat-input"
        />
        <div className="composer-row">
          <label className="preview-toggle" title={t('previewHint')}>
            <input type="checkbox" className="switch" checked={previewOn} onChange={(e) => togglePreview(e.target.checked)} data-testid="preview-toggle" />
            <span>{t('preview')}</span>
          </label>
          <span className={`char-count inline${tooLong ? ' over' : ''}`} data-testid="chat-char-count" title={t('limitHint', { limit: num(MAX_QUESTION_CHARS) })}>
            {num(count)} / {num(MAX_QUESTION_CHARS)}
          </span>
          {streaming ? (
            <button className="btn btn-small btn-danger-ghost" onClick={stop} data-testid="chat-stop" title={t('stopHint')}>
              <StopIcon size={13} /> {t('stop')}
            </button>
          ) : (
            <button
              className="btn btn-small btn-primary"
              onClick={() => send()}
              disabled={!draft.trim() || busy || tooLong || !online}
              data-testid="chat-send"
              title={tooLong ? t('atMost', { limit: num(MAX_QUESTION_CHARS) }) : t('sendHint')}
            >
              <SendIcon size={13} /> {state.pending ? t('sending') : t('send')}
            </button>
          )}
        </div>
        {tooLong && (
          <div className="field-hint error" data-testid="chat-too-long">
            {t('tooLong', { count, chars: num(count), limit: num(MAX_QUESTION_CHARS) })}
          </div>
        )}
      </div>

      {inspectId !== null && <InspectDialog requestId={inspectId} doc={engineState.doc} onFocusNode={focusFromList} onClose={() => setInspectId(null)} />}
    </div>
  );
}
