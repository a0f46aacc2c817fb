// The chat panel (CanvasPage `chat` slot): conversations, streamed replies
// over the canvas socket, Stop, Inspect, context preview and suggestion chips.
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, type KeyboardEvent } from 'react';
import { api, errorMessage } from '../api/client';
import { SENSITIVITIES, type ChatMessage, type ContextReport, type LLMStatus, type Sensitivity, type Suggestion } from '../api/types';
import { useCanvasActions, useEngineState } from '../canvas/context';
import { useOverlay } from '../canvas/overlay';
import { kindMeta, SENSITIVITY_META } from '../canvas/kinds';
import { findFreeSpotAround } from '../canvas/placement';
import { BotIcon, ChevronRightIcon, PlusIcon, ScanEyeIcon, SendIcon, SparklesIcon, StopIcon, XIcon } from '../components/Icons';
import { isComposing, snippet, timeAgo } from '../lib/format';
import { toast } from '../lib/toast';
import { charCount, chatReducer, INITIAL_CHAT, MAX_QUESTION_CHARS, messageErrorText, visibleMessages, type AgentActionEvent, type ChatErrorInfo, type ChatNotice } from './chatState';
import { ExcludedList, IncludedList } from './ContextLists';
import { InspectDialog } from './InspectDialog';
import { PreviewScheduler } from './preview';
import { TokenBar } from './TokenBar';

const ERROR_TITLES: Record<string, string> = {
  MODEL_NOT_CONFIGURED: 'No model is configured',
  MODEL_TIMEOUT: 'The model did not answer in time',
  MODEL_UNREACHABLE: 'Cannot reach the model',
  MODEL_RATE_LIMITED: 'The model endpoint is rate limiting',
  MODEL_HTTP_ERROR: 'The model endpoint returned an error',
  MODEL_BAD_RESPONSE: 'The model sent an unusable answer',
  MODEL_EMPTY: 'The model sent an empty answer',
  INTERNAL: 'Something went wrong on the server',
  BUSY: 'A reply is still streaming',
  INVALID: 'The question was not accepted',
  NOT_FOUND: 'That conversation is gone',
  NOT_CONNECTED: 'Not connected',
  CONNECTION_LOST: 'The connection dropped',
};

const CONFIG_SNIPPET = `LLM_BASE_URL=https://api.openai.com/v1
LLM_API_KEY=sk-…
LLM_MODEL=gpt-4o-mini
# or a local OpenAI-compatible server, e.g.
# LLM_BASE_URL=http://127.0.0.1:8080/v1   (llama.cpp server)
# LLM_BASE_URL=http://127.0.0.1:11434/v1  (Ollama)`;

function ConfigHelp({ status }: { status: LLMStatus | null }) {
  return (
    <div className="config-help">
      <p>{status?.help ?? 'Set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL) on the server and restart it.'}</p>
      <pre className="mono-block">{CONFIG_SNIPPET}</pre>
      <p className="muted small">The canvas, the context preview and everything else keep working without a model.</p>
    </div>
  );
}

function ErrorBox({ info, status, onRetry }: { info: ChatErrorInfo; status: LLMStatus | null; onRetry?: () => void }) {
  const retryable = ['MODEL_TIMEOUT', 'MODEL_UNREACHABLE', 'MODEL_RATE_LIMITED', 'MODEL_HTTP_ERROR', 'MODEL_BAD_RESPONSE', 'MODEL_EMPTY', 'INTERNAL', 'CONNECTION_LOST', 'BUSY', 'NOT_CONNECTED'];
  return (
    <div className="chat-error" role="alert" data-testid="chat-error" data-code={info.code}>
      <div className="chat-error-title">{ERROR_TITLES[info.code] ?? 'The reply failed'}</div>
      {info.code === 'MODEL_NOT_CONFIGURED' ? <ConfigHelp status={status} /> : <div className="chat-error-msg">{info.message}</div>}
      {info.code !== 'MODEL_NOT_CONFIGURED' && info.code !== 'INVALID' && (
        <div className="muted small">Your question is kept; the conversation can continue.</div>
      )}
      {onRetry && retryable.includes(info.code) && (
        <button className="btn btn-small" onClick={onRetry} data-testid="chat-retry">
          Ask again
        </button>
      )}
    </div>
  );
}

function AgentActions({ actions }: { actions: AgentActionEvent[] }) {
  const { overlay } = useCanvasActions();
  if (!actions.length) return null;
  const words: Record<string, string> = { applied: 'Applied', proposed: 'Proposed', read: 'Read', refused: 'Refused' };
  return (
    <ul className="agent-actions" data-testid="agent-actions">
      {actions.map((a, i) => (
        <li key={`${a.call_id}-${i}`} className={`agent-action outcome-${a.outcome}`}>
          <BotIcon size={11} />
          <span>
            {words[a.outcome] ?? a.outcome} <span className="mono-inline">{a.tool}</span>
          </span>
          {a.proposal_id != null && (
            <button className="link-btn" onClick={() => overlay.focusProposal(a.proposal_id!)} data-testid="agent-action-proposal">
              review
            </button>
          )}
          {a.error && <span className="agent-action-error" title={a.error.message}>{snippet(a.error.message, 60)}</span>}
        </li>
      ))}
    </ul>
  );
}

function ContextLine({ report, onInspect }: { report: ContextReport; onInspect?: () => void }) {
  const excluded = Object.values(report.excluded_counts ?? {}).reduce((a, b) => a + b, 0);
  return (
    <button type="button" className="context-line" onClick={onInspect} disabled={!onInspect} data-testid="context-line">
      <ScanEyeIcon size={12} /> {report.included.length} node{report.included.length === 1 ? '' : 's'} sent · {report.total_tokens.toLocaleString()} tokens
      {excluded > 0 && <span className="muted"> · {excluded} left out</span>}
    </button>
  );
}

function Message({
  m,
  error,
  streaming,
  context,
  actions,
  status,
  onInspect,
  onRetry,
}: {
  m: ChatMessage;
  error?: ChatErrorInfo;
  streaming: boolean;
  context?: ContextReport;
  actions?: AgentActionEvent[];
  status: LLMStatus | null;
  onInspect(id: number): void;
  onRetry?: () => void;
}) {
  if (m.role === 'user') {
    return (
      <li className="chat-msg user" data-testid={`chat-message-${m.id}`} data-role="user">
        <div className="bubble">{m.content}</div>
      </li>
    );
  }
  const failed = m.status === 'error';
  const info: ChatErrorInfo | undefined = failed ? error ?? { code: 'ERROR', message: messageErrorText(m) } : undefined;
  return (
    <li className={`chat-msg assistant status-${m.status}`} data-testid={`chat-message-${m.id}`} data-role="assistant" data-status={m.status}>
      <div className="assistant-avatar" aria-hidden="true">
        <SparklesIcon size={13} />
      </div>
      <div className="assistant-body">
        {(m.content || !failed) && (
          <div className="bubble" data-testid="assistant-text">
            {m.content}
            {streaming && !m.content && <span className="thinking">Thinking</span>}
            {streaming && <span className="caret" aria-hidden="true" />}
          </div>
        )}
        {actions && <AgentActions actions={actions} />}
        {info && <ErrorBox info={info} status={status} onRetry={onRetry} />}
        <div className="msg-foot">
          {m.status === 'stopped' && <span className="status-chip status-stopped">stopped</span>}
          {context && <ContextLine report={context} onInspect={m.model_request_id ? () => onInspect(m.model_request_id!) : undefined} />}
          {m.model_request_id != null && !streaming && (
            <button className="link-btn" onClick={() => onInspect(m.model_request_id!)} data-testid="inspect-button">
              <ScanEyeIcon size={12} /> Inspect
            </button>
          )}
        </div>
      </div>
    </li>
  );
}

// What each role may mark (the server refuses more): viewers never get suggestions.
const MARKABLE: Record<string, Sensitivity[]> = { owner: SENSITIVITIES, editor: ['public', 'internal'] };

function SuggestionChip({ s, busy, onAccept, onDismiss }: { s: Suggestion; busy: boolean; onAccept(supersede: boolean, sensitivity: Sensitivity): void; onDismiss(): void }) {
  const { engine, readOnly, role } = useCanvasActions();
  const [supersede, setSupersede] = useState(true);
  const suggested: Sensitivity = s.sensitivity ?? 'public';
  const [sensitivity, setSensitivity] = useState<Sensitivity>(suggested);
  const old = s.supersede_node_id ? engine.getSnapshot().doc.nodes.get(s.supersede_node_id) : undefined;
  const meta = kindMeta(s.kind);
  const willSupersede = !!s.supersede_node_id && supersede;
  const choices = MARKABLE[role ?? ''] ?? [suggested];
  return (
    <li className="suggestion" data-testid={`suggestion-${s.id}`}>
      <div className="suggestion-top">
        <span className="kind-pill" style={{ color: meta.color, background: meta.bg }}>
          {meta.label}
        </span>
        <span className="suggestion-content">{s.content}</span>
        <button className="icon-btn" title="Dismiss" aria-label="Dismiss suggestion" disabled={busy} onClick={onDismiss} data-testid={`suggestion-dismiss-${s.id}`}>
          <XIcon size={13} />
        </button>
      </div>
      {s.supersede_node_id && (
        <div className={`supersede-note${supersede ? '' : ' off'}`} data-testid={`suggestion-supersede-${s.id}`}>
          {supersede ? 'Will supersede' : 'Will not supersede'}{' '}
          <span className="supersede-old">“{old ? snippet(old.content, 60) : 'a node you cannot see'}”</span>
          <label className="supersede-toggle">
            <input type="checkbox" checked={!supersede} onChange={(e) => setSupersede(!e.target.checked)} data-testid={`suggestion-no-supersede-${s.id}`} /> add without superseding
          </label>
        </div>
      )}
      {!readOnly && (
        <div className="suggestion-actions">
          <label className={`suggestion-sensitivity sens-${sensitivity}`} title={SENSITIVITY_META[sensitivity].hint}>
            <span className="sr-only">Sensitivity</span>
            <select value={sensitivity} disabled={busy} onChange={(e) => setSensitivity(e.target.value as Sensitivity)} data-testid={`suggestion-sensitivity-${s.id}`}>
              {choices.map((c) => (
                <option key={c} value={c}>
                  {SENSITIVITY_META[c].label}
                  {c === suggested && suggested !== 'public' ? ' (as you said)' : ''}
                </option>
              ))}
            </select>
          </label>
          <button className="btn btn-small btn-primary suggestion-accept" disabled={busy} onClick={() => onAccept(willSupersede, sensitivity)} data-testid={`suggestion-accept-${s.id}`}>
            <PlusIcon size={13} /> {willSupersede ? 'Add & supersede' : 'Add to canvas'}
          </button>
        </div>
      )}
    </li>
  );
}

function NoticeBox({ n, status, onDismiss, onRestore }: { n: ChatNotice; status: LLMStatus | null; onDismiss(): void; onRestore?: () => void }) {
  return (
    <li className="chat-notice" data-testid={`chat-notice-${n.id}`}>
      <ErrorBox info={{ code: n.code, message: n.message }} status={status} />
      <div className="row gap">
        {n.text && onRestore && (
          <button className="btn btn-small" onClick={onRestore} data-testid="notice-restore">
            Put the question back
          </button>
        )}
        <button className="link-btn" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
    </li>
  );
}

export function ChatPanel() {
  const actions = useCanvasActions();
  const { engine, overlay: overlayStore, canvasId, focusNode, selectOnly, readOnly } = actions;
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
  const [previewTab, setPreviewTab] = useState<'included' | 'excluded'>('included');
  const [busySuggestion, setBusySuggestion] = useState<number | null>(null);
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
      .catch((err) => alive && toast.error(errorMessage(err), 'Could not load conversations'));
    return () => {
      alive = false;
    };
  }, [canvasId]);

  const loadMessages = useCallback(async (id: number) => {
    setLoadingMessages(true);
    try {
      const list = await api.messages(id);
      dispatch({ type: 'messagesLoaded', conversationId: id, messages: Array.isArray(list) ? list : [] });
    } catch (err) {
      toast.error(errorMessage(err), 'Could not load messages');
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
        if (f.type === 'error' && scheduler.acceptError(f)) setPreviewError(f.error?.message ?? 'The preview failed.');
      }),
    [engine, scheduler, overlayStore],
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
    } else toast.info('That conversation belongs to another member; conversations are private.', `Conversation #${req.id}`);
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
        toast.error(`Questions are limited to ${MAX_QUESTION_CHARS.toLocaleString()} characters.`, 'Too long');
        return;
      }
      const requestId = `r-${engine.sessionId}-${++counter.current}`;
      const ok = engine.send({ type: 'chat.send', request_id: requestId, conversation_id: activeId, text: question, viewport: overlayStore.getViewport() });
      if (!ok) {
        dispatch({ type: 'notSent', conversationId: activeId, text: question, code: 'NOT_CONNECTED', message: 'The canvas is not connected right now. Your question was not sent; try again when the status shows online.' });
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

  // ------------------------------------------------------------ suggestions

  const acceptSuggestion = async (s: Suggestion, supersede: boolean, sensitivity?: Sensitivity) => {
    setBusySuggestion(s.id);
    const vp = overlayStore.getViewport();
    const doc = engine.getSnapshot().doc;
    const spot = findFreeSpotAround({ x: vp?.x ?? 0, y: vp?.y ?? 0 }, doc.nodes.values(), { w: 200, h: 90 }, actions.measure);
    try {
      const res = await api.acceptSuggestion(s.id, spot.x, spot.y, supersede, sensitivity);
      dispatch({ type: 'suggestionUpdated', suggestion: res.suggestion });
      toast.success(snippet(s.content, 80), supersede ? 'Added and superseded the old node' : 'Added to the canvas');
      const newId = res.suggestion.created_node_id;
      if (newId) {
        // Select it once the change arrives over the socket.
        const started = Date.now();
        const off = engine.subscribe(() => {
          if (engine.getSnapshot().doc.nodes.has(newId)) {
            off();
            selectOnly([newId]);
          } else if (Date.now() - started > 5000) off();
        });
        if (engine.getSnapshot().doc.nodes.has(newId)) {
          off();
          selectOnly([newId]);
        }
      }
    } catch (err) {
      toast.error(errorMessage(err), 'Could not add the suggestion');
    } finally {
      setBusySuggestion(null);
    }
  };

  const dismissSuggestion = async (s: Suggestion) => {
    setBusySuggestion(s.id);
    try {
      const res = await api.dismissSuggestion(s.id);
      dispatch({ type: 'suggestionUpdated', suggestion: res.suggestion });
    } catch (err) {
      toast.error(errorMessage(err), 'Could not dismiss');
    } finally {
      setBusySuggestion(null);
    }
  };

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
          title="Your conversations on this canvas (private to you)"
        >
          <span className="conv-title" data-testid="conversation-title">
            {active ? active.title || 'Untitled conversation' : 'New conversation'}
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
          title="Start a new conversation"
        >
          <PlusIcon size={13} /> New
        </button>
      </div>

      {listOpen && (
        <div className="conv-list" data-testid="conversation-list">
          {state.conversations === null && <div className="muted small pad">Loading…</div>}
          {state.conversations?.length === 0 && <div className="muted small pad">No conversations yet. Ask a question to start one.</div>}
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
                  <span className="conv-item-title">{c.title || 'Untitled conversation'}</span>
                  <span className="muted small">{timeAgo(c.updated_at)}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}

      {llm && !llm.configured && (
        <div className="chat-banner" data-testid="no-model-banner">
          <strong>No model configured.</strong> Chat replies need an OpenAI-compatible endpoint; the preview below still works.
          <details>
            <summary>How to configure one</summary>
            <ConfigHelp status={llm} />
          </details>
        </div>
      )}

      <ol className="chat-messages" ref={listRef} onScroll={onScroll} data-testid="chat-messages">
        {messages.length === 0 && !pendingHere && (
          <li className="chat-empty">
            <SparklesIcon size={20} />
            <div className="chat-empty-title">Ask about this canvas</div>
            <div className="muted small">
              The model reads the nodes near your viewport, pinned anchors and linked nodes. Pan to what matters, then ask — 例如「数据库端口是多少？」
            </div>
            {loadingMessages && <div className="muted small">Loading messages…</div>}
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

      {suggestions.length > 0 && (
        <div className="suggestions" data-testid="suggestions">
          <div className="suggestions-title">
            <SparklesIcon size={12} /> Captured from your message
          </div>
          <ul>
            {suggestions.map((s) => (
              <SuggestionChip
                key={s.id}
                s={s}
                busy={busySuggestion === s.id}
                onAccept={(sup, sens) => void acceptSuggestion(s, sup, sens)}
                onDismiss={() => void dismissSuggestion(s)}
              />
            ))}
          </ul>
          {readOnly && <div className="muted small">Viewers cannot add to the canvas.</div>}
        </div>
      )}

      {previewOn && (
        <div className="context-preview" data-testid="context-preview">
          {previewError && <div className="field-hint error">{previewError}</div>}
          {!preview && !previewError && <div className="muted small">{online ? 'Computing what would be sent…' : 'Waiting for the connection…'}</div>}
          {preview && (
            <>
              <TokenBar layerTokens={preview.layer_tokens} budget={preview.budget} total={preview.total_tokens} testId="preview-token-bar" />
              <div className="preview-tabs" role="tablist">
                <button
                  role="tab"
                  aria-selected={previewTab === 'included'}
                  className={`preview-tab${previewTab === 'included' ? ' active' : ''}`}
                  onClick={() => setPreviewTab('included')}
                  data-testid="preview-tab-included"
                >
                  Sent <span className="count-pill" data-testid="preview-included-count">{preview.included.length}</span>
                </button>
                <button
                  role="tab"
                  aria-selected={previewTab === 'excluded'}
                  className={`preview-tab${previewTab === 'excluded' ? ' active' : ''}`}
                  onClick={() => setPreviewTab('excluded')}
                  data-testid="preview-tab-excluded"
                >
                  Left out{' '}
                  <span className="count-pill" data-testid="preview-excluded-count">
                    {Object.values(preview.excluded_counts ?? {}).reduce((a, b) => a + b, 0)}
                  </span>
                </button>
              </div>
              <div className="preview-body">
                {previewTab === 'included' ? (
                  <IncludedList items={preview.included} doc={engineState.doc} onFocus={focusFromList} testPrefix="preview" />
                ) : (
                  <ExcludedList items={preview.excluded} counts={preview.excluded_counts ?? {}} doc={engineState.doc} onFocus={focusFromList} testPrefix="preview" />
                )}
              </div>
            </>
          )}
        </div>
      )}

      <div className={`chat-composer${tooLong ? ' over' : ''}`}>
        <textarea
          ref={inputRef}
          value={draft}
          rows={2}
          placeholder={online ? 'Ask about the canvas… (Enter to send, Shift+Enter for a new line)' : 'Offline — reconnecting…'}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          aria-label="Message"
          data-testid="chat-input"
        />
        <div className="composer-row">
          <label className="preview-toggle" title="Highlight what the next question would send, as you pan and type">
            <input type="checkbox" className="switch" checked={previewOn} onChange={(e) => togglePreview(e.target.checked)} data-testid="preview-toggle" />
            <span>Context preview</span>
          </label>
          <span className={`char-count inline${tooLong ? ' over' : ''}`} data-testid="chat-char-count" title="Questions are limited to 8,000 characters">
            {count.toLocaleString()} / {MAX_QUESTION_CHARS.toLocaleString()}
          </span>
          {streaming ? (
            <button className="btn btn-small btn-danger-ghost" onClick={stop} data-testid="chat-stop" title="Stop the reply (Esc)">
              <StopIcon size={13} /> Stop
            </button>
          ) : (
            <button
              className="btn btn-small btn-primary"
              onClick={() => send()}
              disabled={!draft.trim() || busy || tooLong || !online}
              data-testid="chat-send"
              title={tooLong ? `At most ${MAX_QUESTION_CHARS.toLocaleString()} characters` : 'Send (Enter)'}
            >
              <SendIcon size={13} /> {state.pending ? 'Sending…' : 'Send'}
            </button>
          )}
        </div>
        {tooLong && (
          <div className="field-hint error" data-testid="chat-too-long">
            The question is {count.toLocaleString()} characters; the limit is {MAX_QUESTION_CHARS.toLocaleString()}.
          </div>
        )}
      </div>

      {inspectId !== null && <InspectDialog requestId={inspectId} doc={engineState.doc} onFocusNode={focusFromList} onClose={() => setInspectId(null)} />}
    </div>
  );
}
