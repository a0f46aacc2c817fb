// "Inspect" for an assistant message: exactly what the model was sent and
// what came back (GET /api/model-requests/{id}/).
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, errorMessage } from '../api/client';
import type { ModelRequestRecord } from '../api/types';
import { Dialog } from '../components/Dialog';
import { formatDateTime } from '../lib/format';
import type { Doc } from '../sync/apply';
import { ExcludedList, IncludedList } from './ContextLists';
import { TokenBar } from './TokenBar';

function contentText(content: unknown): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) => (part && typeof part === 'object' && 'text' in part ? String((part as { text: unknown }).text) : JSON.stringify(part)))
      .join('\n');
  return JSON.stringify(content, null, 2);
}

function SentMessage({ index, m }: { index: number; m: ModelRequestRecord['messages'][number] }) {
  const { t } = useTranslation('panels');
  const [open, setOpen] = useState(false);
  const text = contentText(m.content);
  const extra = m.tool_calls ? `\n\ntool_calls: ${JSON.stringify(m.tool_calls, null, 2)}` : '';
  const preview = text.replace(/\s+/g, ' ').slice(0, 90);
  return (
    <li className={`sent-msg role-${m.role}`} data-testid={`inspect-message-${index}`}>
      <button type="button" className="sent-head" onClick={() => setOpen((v) => !v)} aria-expanded={open}>
        <span className="excluded-caret">{open ? '▾' : '▸'}</span>
        <span className={`role-tag role-tag-${m.role}`}>{m.role}</span>
        {m.tool_call_id && <span className="muted small">{m.tool_call_id}</span>}
        <span className="sent-preview">{preview || (extra ? t('inspect.toolCalls') : t('inspect.empty'))}</span>
        <span className="muted small">{t('inspect.chars', { count: [...text].length, formattedCount: [...text].length.toLocaleString() })}</span>
      </button>
      {open && <pre className="mono-block">{text + extra}</pre>}
    </li>
  );
}

interface Props {
  requestId: number;
  doc: Doc;
  onFocusNode(id: string): void;
  onClose(): void;
}

export function InspectDialog({ requestId, doc, onFocusNode, onClose }: Props) {
  const { t } = useTranslation('panels');
  const [rec, setRec] = useState<ModelRequestRecord | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [allOpen, setAllOpen] = useState(false);

  useEffect(() => {
    let alive = true;
    api
      .modelRequest(requestId)
      .then((r) => alive && setRec(r))
      .catch((err) => alive && setError(errorMessage(err)));
    return () => {
      alive = false;
    };
  }, [requestId]);

  const report = rec?.report ?? null;
  const included = report?.included_nodes ?? [];
  const excluded = report?.excluded_nodes ?? [];
  const usage = rec?.usage ?? null;
  const tools = (rec?.tools ?? []).map((tool) => tool?.function?.name).filter(Boolean) as string[];
  const focus = (id: string) => {
    onClose();
    onFocusNode(id);
  };

  return (
    <Dialog title={t('inspect.title')} onClose={onClose} width={780} testId="inspect-dialog">
      {error && <div className="form-error">{error}</div>}
      {!rec && !error && <div className="muted">{t('inspect.loading')}</div>}
      {rec && (
        <div className="inspect">
          <dl className="inspect-grid">
            <div>
              <dt>{t('inspect.model')}</dt>
              <dd data-testid="inspect-model">{rec.model || '—'}</dd>
            </div>
            <div>
              <dt>{t('inspect.strategy')}</dt>
              <dd>{rec.strategy}</dd>
            </div>
            <div>
              <dt>{t('inspect.latency')}</dt>
              <dd data-testid="inspect-latency">{rec.latency_ms != null ? t('inspect.seconds', { s: (rec.latency_ms / 1000).toFixed(2) }) : '—'}</dd>
            </div>
            <div>
              <dt>{t('inspect.usage')}</dt>
              <dd data-testid="inspect-usage">
                {usage ? (
                  <>
                    {t('inspect.usageInOut', { prompt: usage.prompt_tokens ?? '—', completion: usage.completion_tokens ?? '—' })}
                    {usage.total_tokens != null && <span className="muted">{t('inspect.usageTotal', { total: usage.total_tokens })}</span>}
                  </>
                ) : (
                  <span className="muted">{t('inspect.notReported')}</span>
                )}
              </dd>
            </div>
            <div>
              <dt>{t('inspect.purpose')}</dt>
              <dd>{rec.purpose}</dd>
            </div>
            <div>
              <dt>{t('inspect.sent')}</dt>
              <dd>{formatDateTime(rec.created_at)}</dd>
            </div>
          </dl>

          {rec.error && (
            <div className="form-error" data-testid="inspect-error">
              {rec.error}
            </div>
          )}

          <section>
            <h3 className="section-title">{t('inspect.tokensPerLayer')}</h3>
            <TokenBar layerTokens={rec.layer_tokens ?? {}} budget={report?.budget ?? rec.budget} total={report?.total_tokens} testId="inspect-token-bar" />
          </section>

          <section>
            <h3 className="section-title">
              {t('inspect.nodesSent')} <span className="count-pill">{included.length}</span>
            </h3>
            <div className="ctx-list-head">
              <span>#</span>
              <span>{t('inspect.colId')}</span>
              <span>{t('inspect.colNode')}</span>
              <span>{t('inspect.colWhy')}</span>
              <span>{t('inspect.colTokens')}</span>
            </div>
            <IncludedList items={included} doc={doc} onFocus={focus} testPrefix="inspect" />
          </section>

          {report?.excluded_counts && Object.keys(report.excluded_counts).length > 0 && (
            <section>
              <h3 className="section-title">{t('inspect.leftOut')}</h3>
              <ExcludedList items={excluded} counts={report.excluded_counts} doc={doc} onFocus={focus} testPrefix="inspect" />
            </section>
          )}

          {(report?.notes?.length ?? 0) > 0 && (
            <section>
              <h3 className="section-title">{t('inspect.notes')}</h3>
              <ul className="notes">
                {report!.notes!.map((n, i) => (
                  <li key={i}>{n}</li>
                ))}
              </ul>
            </section>
          )}

          <section>
            <div className="section-row">
              <h3 className="section-title">
                {t('inspect.messagesSent')} <span className="count-pill">{rec.messages.length}</span>
              </h3>
              <button className="link-btn" onClick={() => setAllOpen((v) => !v)} data-testid="inspect-expand-all">
                {allOpen ? t('inspect.collapseAll') : t('inspect.expandAll')}
              </button>
            </div>
            <ol className="sent-list" key={allOpen ? 'open' : 'closed'}>
              {rec.messages.map((m, i) =>
                allOpen ? (
                  <li key={i} className={`sent-msg role-${m.role}`} data-testid={`inspect-message-${i}`}>
                    <div className="sent-head static">
                      <span className={`role-tag role-tag-${m.role}`}>{m.role}</span>
                    </div>
                    <pre className="mono-block">{contentText(m.content) + (m.tool_calls ? `\n\ntool_calls: ${JSON.stringify(m.tool_calls, null, 2)}` : '')}</pre>
                  </li>
                ) : (
                  <SentMessage key={i} index={i} m={m} />
                ),
              )}
            </ol>
            {tools.length > 0 && (
              <p className="muted small">
                {t('inspect.toolsOffered')} <span className="mono-inline">{tools.join(', ')}</span>
              </p>
            )}
          </section>

          {(!!rec.response_text || !!rec.tool_calls) && (
            <section>
              <h3 className="section-title">{t('inspect.cameBack')}</h3>
              {rec.response_text && <pre className="mono-block">{rec.response_text}</pre>}
              {!!rec.tool_calls && <pre className="mono-block">{JSON.stringify(rec.tool_calls, null, 2)}</pre>}
            </section>
          )}
        </div>
      )}
    </Dialog>
  );
}
