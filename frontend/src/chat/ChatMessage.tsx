// One chat message (a question as plain text, a reply as safe Markdown with `[n3]` node links), its
// chips and context line, and the error / notice boxes.
import { useCallback } from 'react';
import type { ChatMessage, ContextReport, LLMStatus, Suggestion } from '../api/types';
import { RedoIcon, ScanEyeIcon, SparklesIcon } from '../components/Icons';
import { handlesFor, messageErrorInfo, type AgentActionEvent, type ChatErrorInfo, type ChatNotice } from './chatState';
import { MarkdownText } from './markdown/MarkdownText';
import { AgentActions, CapturedFacts } from './MessageChips';
import { useTranslation } from 'react-i18next';
import { localizedApiMessage } from '../i18n/errors';
import { formatNumber } from '../i18n/format';


// Titles for the chat error codes (docs/protocol.md): chat:errorTitles.<CODE>.
export const CHAT_ERROR_CODES = ['MODEL_NOT_CONFIGURED', 'MODEL_TIMEOUT', 'MODEL_UNREACHABLE', 'MODEL_RATE_LIMITED', 'MODEL_HTTP_ERROR', 'MODEL_BAD_RESPONSE', 'MODEL_EMPTY', 'INTERNAL', 'BUSY', 'INVALID', 'NOT_FOUND', 'NOT_CONNECTED', 'CONNECTION_LOST'] as const;

// The variable names and URLs stay as they are; the comments are in the reader's language.
function configSnippet(t: (key: string) => string): string {
  return `LLM_BASE_URL=https://api.openai.com/v1
LLM_API_KEY=sk-…
LLM_MODEL=gpt-4o-mini
# ${t('configSnippet.local')}
# LLM_BASE_URL=http://127.0.0.1:8080/v1   (${t('configSnippet.llamaCpp')})
# LLM_BASE_URL=http://127.0.0.1:11434/v1  (Ollama)`;
}

export function ConfigHelp({ status }: { status: LLMStatus | null }) {
  const { t, i18n } = useTranslation('chat');
  // The server's hint is English only; other languages get the catalogue's text.
  const serverHint = i18n.language === 'en' ? status?.help : null;
  return (
    <div className="config-help">
      <p>{serverHint ?? t('configHelp')}</p>
      <pre className="mono-block">{configSnippet(t)}</pre>
      <p className="muted small">{t('worksWithoutModel')}</p>
    </div>
  );
}

export function ErrorBox({ info, status, onRetry }: { info: ChatErrorInfo; status: LLMStatus | null; onRetry?: () => void }) {
  const { t } = useTranslation('chat');
  const retryable = ['MODEL_TIMEOUT', 'MODEL_UNREACHABLE', 'MODEL_RATE_LIMITED', 'MODEL_HTTP_ERROR', 'MODEL_BAD_RESPONSE', 'MODEL_EMPTY', 'INTERNAL', 'CONNECTION_LOST', 'BUSY', 'NOT_CONNECTED'];
  return (
    <div className="chat-error" role="alert" data-testid="chat-error" data-code={info.code}>
      <div className="chat-error-title">{(CHAT_ERROR_CODES as readonly string[]).includes(info.code) ? t(`errorTitles.${info.code}`) : t('replyFailed')}</div>
      {info.code === 'MODEL_NOT_CONFIGURED' ? <ConfigHelp status={status} /> : <div className="chat-error-msg">{localizedApiMessage(info.code, info.message)}</div>}
      {info.code !== 'MODEL_NOT_CONFIGURED' && info.code !== 'INVALID' && (
        <div className="muted small">{t('questionKept')}</div>
      )}
      {onRetry && retryable.includes(info.code) && (
        <button className="btn btn-small" onClick={onRetry} data-testid="chat-retry">
          {t('askAgain')}
        </button>
      )}
    </div>
  );
}

export function ContextLine({ report, onInspect }: { report: ContextReport; onInspect?: () => void }) {
  const { t } = useTranslation('chat');
  const excluded = Object.values(report.excluded_counts ?? {}).reduce((a, b) => a + b, 0);
  return (
    <button type="button" className="context-line" onClick={onInspect} disabled={!onInspect} data-testid="context-line">
      <ScanEyeIcon size={12} /> {t('contextLine', { count: report.included.length, tokens: formatNumber(report.total_tokens) })}
      {excluded > 0 && <span className="muted"> · {t('leftOut', { count: excluded })}</span>}
    </button>
  );
}

export function Message({
  m,
  error,
  streaming,
  context,
  actions,
  captured,
  status,
  isNodeVisible,
  onFocusNode,
  onInspect,
  onRetry,
}: {
  m: ChatMessage;
  error?: ChatErrorInfo;
  streaming: boolean;
  context?: ContextReport;
  actions?: AgentActionEvent[];
  /** user messages: the facts captured from it */
  captured?: Suggestion[];
  status: LLMStatus | null;
  isNodeVisible(nodeId: string): boolean;
  onFocusNode(nodeId: string): void;
  onInspect(id: number): void;
  /** resend this turn's question as a new turn */
  onRetry?: () => void;
}) {
  const handles = m.role === 'assistant' ? handlesFor(m, context) : null;
  const resolve = useCallback(
    (handle: string) => {
      const id = handles?.[handle];
      return id && isNodeVisible(id) ? id : null;
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [JSON.stringify(handles), isNodeVisible],
  );
  const { t } = useTranslation('chat');
  if (m.role === 'user') {
    return (
      <li className="chat-msg user" data-testid={`chat-message-${m.id}`} data-role="user">
        <div className="chat-user-stack">
          <div className="bubble" dir="auto">
            {m.content}
          </div>
          {captured && <CapturedFacts suggestions={captured} />}
        </div>
      </li>
    );
  }
  const failed = m.status === 'error';
  const info: ChatErrorInfo | undefined = failed ? messageErrorInfo(m, error) : undefined;
  const settled = !streaming && (m.status === 'complete' || m.status === 'stopped');
  return (
    <li className={`chat-msg assistant status-${m.status}`} data-testid={`chat-message-${m.id}`} data-role="assistant" data-status={m.status}>
      <div className="assistant-avatar" aria-hidden="true">
        <SparklesIcon size={13} />
      </div>
      <div className="assistant-body">
        {(m.content || !failed) && (
          <div className="bubble md-bubble" data-testid="assistant-text">
            {m.content && <MarkdownText text={m.content} resolve={resolve} onFocusNode={onFocusNode} />}
            {streaming && !m.content && <span className="thinking">{t('thinking')}</span>}
            {streaming && <span className="caret" aria-hidden="true" />}
          </div>
        )}
        {actions && <AgentActions actions={actions} />}
        {info && <ErrorBox info={info} status={status} onRetry={onRetry} />}
        <div className="msg-foot">
          {m.status === 'stopped' && <span className="status-chip status-stopped">{t('stopped')}</span>}
          {context && <ContextLine report={context} onInspect={m.model_request_id ? () => onInspect(m.model_request_id!) : undefined} />}
          {m.model_request_id != null && !streaming && (
            <button className="link-btn" onClick={() => onInspect(m.model_request_id!)} data-testid="inspect-button">
              <ScanEyeIcon size={12} /> {t('inspect')}
            </button>
          )}
          {settled && onRetry && (
            <button className="link-btn ask-again-btn" onClick={onRetry} title={t('askAgainHint')} data-testid="ask-again">
              <RedoIcon size={12} /> {t('askAgain')}
            </button>
          )}
        </div>
      </div>
    </li>
  );
}

export function NoticeBox({ n, status, onDismiss, onRestore }: { n: ChatNotice; status: LLMStatus | null; onDismiss(): void; onRestore?: () => void }) {
  const { t } = useTranslation('chat');
  return (
    <li className="chat-notice" data-testid={`chat-notice-${n.id}`}>
      <ErrorBox info={{ code: n.code, message: n.message }} status={status} />
      <div className="row gap">
        {n.text && onRestore && (
          <button className="btn btn-small" onClick={onRestore} data-testid="notice-restore">
            {t('putBack')}
          </button>
        )}
        <button className="link-btn" onClick={onDismiss}>
          {t('common:actions.dismiss')}
        </button>
      </div>
    </li>
  );
}
