// The chat panel (CanvasPage `chat` slot): conversations, streamed replies over the canvas socket,
// Stop, Ask again, Inspect and the context preview. The parts: ConversationHeader, MessageList
// (ChatMessage, MessageChips, markdown/), SuggestionList, Composer; the preview in useContextPreview.
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { api, errorMessage } from '../api/client';
import type { LLMStatus } from '../api/types';
import { useCanvasActions, useEngineState } from '../canvas/context';
import { useOverlay } from '../canvas/overlay';
import { flashNode } from '../canvas/search/flashNode';
import { toast } from '../lib/toast';
import { charCount, chatReducer, INITIAL_CHAT, MAX_QUESTION_CHARS, visibleMessages } from './chatState';
import { Composer } from './Composer';
import { ContextPreviewBox } from './ContextPreviewBox';
import { ConversationHeader } from './ConversationHeader';
import { InspectDialog } from './InspectDialog';
import { MessageList } from './MessageList';
import { SuggestionList } from './SuggestionList';
import { useContextPreview } from './useContextPreview';
import { useTranslation } from 'react-i18next';
import { formatNumber as num } from '../i18n/format';
import './chat.css';

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
  const [loadingMessages, setLoadingMessages] = useState(false);
  const counter = useRef(0);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const online = engineState.status === 'online';
  const activeId = state.activeId;
  const preview = useContextPreview({ engine, overlayStore, draft, activeId, revision: engineState.revision, online });

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
  }, [canvasId, t]);

  const loadSuggestions = useCallback(async (id: number) => {
    try {
      const list = await api.suggestions(id);
      dispatch({ type: 'suggestionsLoaded', conversationId: id, suggestions: Array.isArray(list) ? list : [] });
    } catch {
      // the chat works without them; the next turn brings fresh ones
    }
  }, []);

  // The message list carries each reply's agent chips and each question's suggestions (restored on reload).
  const loadMessages = useCallback(async (id: number) => {
    setLoadingMessages(true);
    try {
      const list = await api.messages(id);
      dispatch({ type: 'messagesLoaded', conversationId: id, messages: Array.isArray(list) ? list : [] });
    } catch (err) {
      toast.error(errorMessage(err), t('loadMessagesFailed'));
    } finally {
      setLoadingMessages(false);
    }
  }, [t]);

  useEffect(() => {
    if (activeId !== null && !state.messages[activeId]) void loadMessages(activeId);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [activeId]);

  // ------------------------------------------------------------ socket frames

  useEffect(
    () =>
      engine.onFrame((f) => {
        if (!f.type.startsWith('chat.') && f.type !== 'agent.action') return;
        dispatch({ type: 'frame', frame: f });
        // A correction may retire a value still waiting as a suggestion: the server's list is the truth.
        const conv = (f as { conversation?: { id?: number } }).conversation?.id;
        if (f.type === 'chat.started' && typeof conv === 'number') void loadSuggestions(conv);
      }),
    [engine, loadSuggestions],
  );

  // A dropped socket ends any stream; after reconnecting, reload what the server kept.
  const wasOnline = useRef(online);
  const lostDuringStream = useRef<number | null>(null);
  useEffect(() => {
    if (wasOnline.current && !online) {
      if (state.streaming || state.pending) lostDuringStream.current = state.streaming?.conversationId ?? state.pending?.conversationId ?? activeId;
      dispatch({ type: 'connectionLost' });
    }
    if (!wasOnline.current && online && lostDuringStream.current !== null) {
      void loadMessages(lostDuringStream.current);
      lostDuringStream.current = null;
    }
    wasOnline.current = online;
  }, [online, state.streaming, state.pending, activeId, loadMessages]);

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

  // ------------------------------------------------------------ sending

  const streaming = state.streaming;
  const busy = !!state.pending || !!streaming;

  /** Send `text` (Ask again) or the draft as a new turn of the open conversation. */
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
    },
    [draft, busy, engine, activeId, overlayStore, t],
  );

  // Before `chat.started` the reply has no id yet: `message_id: null` stops it as soon as it starts.
  const stop = () => {
    if (streaming) engine.send({ type: 'chat.stop', message_id: streaming.messageId });
    else if (state.pending) engine.send({ type: 'chat.stop', message_id: null });
  };

  // ------------------------------------------------------------ view

  const messages = visibleMessages(state, activeId);
  const pendingHere = state.pending && state.pending.conversationId === activeId ? state.pending : null;
  const suggestions = state.suggestions.filter((s) => s.status === 'pending' && (activeId === null || s.conversation_id === activeId));
  const doc = engineState.doc;
  const isNodeVisible = useCallback((id: string) => doc.nodes.has(id), [doc]);
  const focusIfVisible = useCallback((id: string) => {
    if (engine.getSnapshot().doc.nodes.has(id)) focusNode(id);
  }, [engine, focusNode]);
  // A `[n3]` reference jumps to its node like a search hit: centred, selected and flashed.
  const focusReference = useCallback((id: string) => {
    if (!engine.getSnapshot().doc.nodes.has(id)) return;
    focusNode(id);
    flashNode(id);
  }, [engine, focusNode]);

  return (
    <div className="chat-panel" data-testid="chat-panel">
      <ConversationHeader
        conversations={state.conversations}
        activeId={activeId}
        llm={llm}
        listOpen={listOpen}
        setListOpen={setListOpen}
        dispatch={dispatch}
        onNew={() => {
          dispatch({ type: 'select', id: null });
          setListOpen(false);
          inputRef.current?.focus();
        }}
      />

      <MessageList
        state={state}
        messages={messages}
        pending={pendingHere}
        llm={llm}
        loading={loadingMessages}
        dispatch={dispatch}
        isNodeVisible={isNodeVisible}
        onFocusNode={focusReference}
        onInspect={setInspectId}
        onAskAgain={busy ? null : (question) => send(question)}
        onRestore={(text) => {
          setDraft(text);
          inputRef.current?.focus();
        }}
      />

      {/* suggestions and preview share one scrolling box so the conversation keeps its minimum height */}
      <div className="chat-extras" data-testid="chat-extras">
        <SuggestionList suggestions={suggestions} dispatch={dispatch} />
        {preview.previewOn && <ContextPreviewBox preview={preview.preview} error={preview.previewError} online={online} doc={doc} onFocus={focusIfVisible} />}
      </div>

      <Composer
        inputRef={inputRef}
        draft={draft}
        setDraft={setDraft}
        online={online}
        busy={busy}
        pending={!!state.pending}
        streaming={!!streaming}
        previewOn={preview.previewOn}
        onTogglePreview={preview.togglePreview}
        onSend={() => send()}
        onStop={stop}
      />

      {inspectId !== null && <InspectDialog requestId={inspectId} doc={doc} onFocusNode={focusIfVisible} onClose={() => setInspectId(null)} />}
    </div>
  );
}
