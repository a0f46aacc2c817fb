// The owner's review of the canvas change log (GET …/audit/): filters by
// person, kind of actor, node and time; each entry with its diff in node text;
// "Verify chain" re-checks the hash chain on the server (POST …/audit/verify/).
import i18n from 'i18next';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, errorMessage } from '../api/client';
import { relationLabel } from '../api/types';
import type { AuditEntry, AuditFilters, AuditPage, ChainReport } from '../api/types';
import { Dialog } from '../components/Dialog';
import { DiffRows } from '../components/DiffRows';
import { ActorLine } from '../canvas/NodeHistory';
import { useCanvasActions } from '../canvas/context';
import { formatDateTime, snippet } from '../lib/format';
import { describeEntry, reasonBadge } from './describe';
import './AuditDialog.css';

// label: a key in the canvas catalogue
const KINDS: { id: string; label: string }[] = [
  { id: '', label: 'audit.kinds.all' },
  { id: 'user', label: 'audit.kinds.user' },
  { id: 'agent', label: 'audit.kinds.agent' },
  { id: 'system', label: 'audit.kinds.system' },
];

/** A yyyy-mm-dd date input as the start or end of that local day, in ISO 8601. */
export function dayBoundary(day: string, end: boolean): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const [y, m, d] = day.split('-').map(Number);
  const date = end ? new Date(y, m - 1, d, 23, 59, 59, 999) : new Date(y, m - 1, d, 0, 0, 0, 0);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function entryText(e: AuditEntry): string {
  if (e.entity === 'edge') {
    const rel = relationLabel(String((e.after ?? e.before)?.relation ?? ''));
    return i18n.t('canvas:audit.edgeText', { source: snippet(e.source_text || '?', 60), relation: rel, target: snippet(e.target_text || '?', 60) });
  }
  if (e.entity === 'member') {
    // The server's summary is "username role": the role word in the UI language.
    const m = /^(.*) (owner|editor|viewer)$/.exec(e.summary ?? '');
    if (m) return i18n.t('canvas:audit.memberText', { name: m[1], role: i18n.t(`common:roles.${m[2]}`) });
  }
  return e.summary;
}

interface Props {
  canvasId: string;
  /** the node selected on the canvas, offered as a filter */
  selectedNode: { id: string; content: string } | null;
  onClose(): void;
}

export function AuditDialog({ canvasId, selectedNode, onClose }: Props) {
  const { t } = useTranslation('canvas');
  const { focusNode, engine } = useCanvasActions();
  const [actor, setActor] = useState<number | null>(null);
  const [kind, setKind] = useState('');
  const [onlyNode, setOnlyNode] = useState<string | null>(null);
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [page, setPage] = useState<AuditPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [chain, setChain] = useState<ChainReport | 'checking' | null>(null);
  const reqId = useRef(0);

  const filters = useCallback(
    (): AuditFilters => ({
      actor,
      actorKind: kind || undefined,
      nodeId: onlyNode,
      since: since ? dayBoundary(since, false) : null,
      until: until ? dayBoundary(until, true) : null,
      limit: 50,
    }),
    [actor, kind, onlyNode, since, until],
  );

  useEffect(() => {
    const id = ++reqId.current;
    setPage(null);
    setError(null);
    api
      .audit(canvasId, filters())
      .then((p) => id === reqId.current && setPage(p))
      .catch((err) => id === reqId.current && setError(errorMessage(err)));
  }, [canvasId, filters]);

  const more = async () => {
    if (!page?.next_before) return;
    setLoadingMore(true);
    try {
      const next = await api.audit(canvasId, { ...filters(), before: page.next_before });
      setPage((cur) => (cur ? { ...next, items: [...cur.items, ...next.items] } : next));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setLoadingMore(false);
    }
  };

  const verify = async () => {
    setChain('checking');
    try {
      setChain(await api.verifyAudit(canvasId));
    } catch (err) {
      setChain(null);
      setError(errorMessage(err));
    }
  };

  const open = (e: AuditEntry) => {
    if (e.node_id && engine.getSnapshot().doc.nodes.has(e.node_id)) {
      focusNode(e.node_id);
      onClose();
    }
  };

  return (
    <Dialog title={t('audit.title')} onClose={onClose} width={860} testId="audit-dialog">
      <div className="audit-filters">
        <label className="field compact">
          <span>{t('audit.person')}</span>
          <select value={actor ?? ''} onChange={(e) => setActor(e.target.value ? Number(e.target.value) : null)} data-testid="audit-actor">
            <option value="">{t('audit.everyone')}</option>
            {(page?.actors ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.username}
              </option>
            ))}
          </select>
        </label>
        <div className="segmented small" role="radiogroup" aria-label={t('audit.actorKind')}>
          {KINDS.map((k) => (
            <button
              key={k.id || 'all'}
              type="button"
              role="radio"
              aria-checked={kind === k.id}
              className={`seg${kind === k.id ? ' active' : ''}`}
              onClick={() => setKind(k.id)}
              data-testid={`audit-kind-${k.id || 'all'}`}
            >
              {t(k.label)}
            </button>
          ))}
        </div>
        <label className="field compact">
          <span>{t('audit.from')}</span>
          <input type="date" value={since} onChange={(e) => setSince(e.target.value)} data-testid="audit-since" />
        </label>
        <label className="field compact">
          <span>{t('audit.to')}</span>
          <input type="date" value={until} onChange={(e) => setUntil(e.target.value)} data-testid="audit-until" />
        </label>
        {(selectedNode || onlyNode) && (
          <label className="check-row small audit-node-filter" title={selectedNode?.content}>
            <input
              type="checkbox"
              checked={onlyNode !== null}
              onChange={(e) => setOnlyNode(e.target.checked && selectedNode ? selectedNode.id : null)}
              data-testid="audit-only-node"
            />{' '}
            {t('audit.onlyNode', { text: snippet(selectedNode?.content ?? '', 40) })}
          </label>
        )}
        <span className="audit-spacer" />
        <button className="btn btn-small" onClick={() => void verify()} disabled={chain === 'checking'} data-testid="audit-verify">
          {chain === 'checking' ? t('audit.checking') : t('audit.verify')}
        </button>
      </div>
      {chain && chain !== 'checking' && (
        <div className={`banner ${chain.ok ? 'banner-ok' : 'banner-error'}`} role="status" data-testid="audit-verify-result">
          {chain.ok
            ? t('audit.chainIntact', { count: chain.entries })
            : t('audit.chainBroken', { revision: chain.problem?.revision ?? '?', seq: chain.problem?.seq ?? '?', problem: chain.problem?.problem ?? '' })}
        </div>
      )}
      {error && (
        <div className="form-error" role="alert">
          {error}
        </div>
      )}
      {!page && !error && <div className="muted small">{t('audit.loading')}</div>}
      {page && page.items.length === 0 && <div className="panel-empty">{t('audit.noMatch')}</div>}
      {page && page.items.length > 0 && (
        <ol className="audit-list" data-testid="audit-list">
          {page.items.map((e) => {
            const badge = reasonBadge(e);
            return (
              <li key={`${e.revision}-${e.seq}`} className="audit-entry" data-testid="audit-entry" data-revision={e.revision}>
                <div className="audit-entry-head">
                  <span className="audit-rev">{t('pages:list.rev', { revision: e.revision })}</span>
                  <ActorLine entry={e} />
                  <span className="audit-what">{describeEntry(e)}</span>
                  {badge && <span className="reason-chip">{badge}</span>}
                  <span className="muted small audit-time">{formatDateTime(e.at)}</span>
                </div>
                {entryText(e) &&
                  (e.node_id ? (
                    <button type="button" className="link-btn audit-text" dir="auto" onClick={() => open(e)} title={t('audit.showOnCanvas')}>
                      {snippet(entryText(e), 160)}
                    </button>
                  ) : (
                    <span className="audit-text" dir="auto">
                      {snippet(entryText(e), 160)}
                    </span>
                  ))}
                {e.action === 'updated' && <DiffRows rows={e.diff} />}
                <code className="audit-hash" title={t('audit.hashTitle', { hash: e.hash, previous: e.prev_hash || '—' })}>
                  {e.hash.slice(0, 12)}
                </code>
              </li>
            );
          })}
        </ol>
      )}
      {page?.next_before != null && (
        <button className="btn btn-small btn-block" onClick={() => void more()} disabled={loadingMore} data-testid="audit-more">
          {loadingMore ? t('common:loading') : t('audit.older')}
        </button>
      )}
    </Dialog>
  );
}
