// A node's timeline (GET …/nodes/{id}/timeline/): every change with its actor
// (a person, or the agent for a person, with the conversation), field diffs,
// the superseded chain before and after it, a filter by actor kind and
// "Revert to this version" (POST …/revert/, a new logged change).
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, errorMessage } from '../api/client';
import type { NodeTimeline, TimelineEntry } from '../api/types';
import { DiffRows } from '../components/DiffRows';
import { ArrowRightIcon, BotIcon, ChatIcon, HistoryIcon } from '../components/Icons';
import { formatDateTime, snippet, timeAgo } from '../lib/format';
import { toast } from '../lib/toast';
import { actorLabel, describeEntry, edgeFromNode, reasonBadge } from '../history/describe';
import { useCanvasActions } from './context';

const FILTERS: { id: string; label: string }[] = [
  { id: '', label: 'history.filter.all' },
  { id: 'user', label: 'history.filter.people' },
  { id: 'agent', label: 'history.filter.agent' },
  { id: 'system', label: 'history.filter.system' },
];

export function ActorLine({ entry }: { entry: TimelineEntry }) {
  const { t } = useTranslation('editing');
  const { overlay } = useCanvasActions();
  const a = entry.actor;
  return (
    <span className={`actor actor-${a?.kind ?? 'user'}`} data-testid="history-actor">
      {a?.kind === 'agent' && <BotIcon size={12} />}
      <strong>{actorLabel(a)}</strong>
      {a?.approved_by && <span className="muted"> · {t('history.approvedBy', { username: a.approved_by.username })}</span>}
      {a?.conversation_id != null && (
        <>
          {' · '}
          <button
            type="button"
            className="link-btn conv-link"
            title={t('history.openConversation')}
            onClick={(ev) => {
              ev.stopPropagation();
              overlay.openConversation(a.conversation_id as number);
            }}
            data-testid="history-conversation-link"
          >
            <ChatIcon size={11} /> {t('history.conversation', { id: a.conversation_id })}
          </button>
        </>
      )}
    </span>
  );
}

export function NodeHistory({ canvasId, nodeId, version }: { canvasId: string; nodeId: string; version: number }) {
  const { t } = useTranslation('editing');
  const { readOnly, focusNode, engine } = useCanvasActions();
  const [data, setData] = useState<NodeTimeline | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [reverting, setReverting] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let alive = true;
    setError(null);
    api
      .nodeTimeline(canvasId, nodeId, filter || undefined)
      .then((tl) => alive && setData(tl))
      .catch((err) => alive && setError(errorMessage(err)));
    return () => {
      alive = false;
    };
  }, [canvasId, nodeId, version, filter, tick]);

  const revert = useCallback(
    async (e: TimelineEntry) => {
      const target = e.node_id ?? nodeId;
      const key = `${e.revision}-${e.seq}`;
      setReverting(key);
      try {
        const res = await api.revertNode(canvasId, target, e.revision);
        if (res.fields.length === 0 && !res.recreated) toast.info(t('history.nothingToRevert'), t('history.nothingToRevertTitle'));
        else toast.success(
          res.recreated
            ? t('history.restoredDeleted', { revision: e.revision })
            : t('history.restoredFields', { fields: res.fields.join(', '), revision: e.revision }),
          t('history.reverted'),
        );
        setTick((n) => n + 1);
      } catch (err) {
        toast.error(errorMessage(err), t('history.revertFailed'));
      } finally {
        setReverting(null);
      }
    },
    [canvasId, nodeId, t],
  );

  if (error) return <div className="field-hint error">{error}</div>;
  if (!data) return <div className="muted small" data-testid="node-history-loading">{t('history.loading')}</div>;

  const entries = [...data.entries].reverse();
  const chain = data.chain;
  const doc = engine.getSnapshot().doc;
  // The newest node entry for this node: reverting to it changes nothing.
  const latestOwn = entries.find((e) => e.entity === 'node' && (e.node_id ?? e.target_id) === nodeId);

  return (
    <div className="node-history" data-testid="node-history">
      <div className="history-toolbar">
        <div className="segmented small" role="radiogroup" aria-label={t('history.filterByActor')}>
          {FILTERS.map((f) => (
            <button
              key={f.id || 'all'}
              type="button"
              role="radio"
              aria-checked={filter === f.id}
              className={`seg${filter === f.id ? ' active' : ''}`}
              onClick={() => setFilter(f.id)}
              data-testid={`history-filter-${f.id || 'all'}`}
            >
              {t(f.label)}
            </button>
          ))}
        </div>
      </div>

      {chain.length > 1 && (
        <div className="history-chain" data-testid="history-chain">
          <div className="history-chain-title">{t('history.versions')}</div>
          <ol>
            {chain.map((c, i) => (
              <li key={c.id} className={`chain-item chain-${c.position}${c.deleted ? ' deleted' : ''}`}>
                {i > 0 && <ArrowRightIcon size={11} className="chain-arrow" />}
                <button
                  type="button"
                  className="chain-btn"
                  disabled={c.position === 'current' || c.deleted || !doc.nodes.has(c.id)}
                  onClick={() => focusNode(c.id)}
                  title={c.deleted ? t('history.deleted') : c.content}
                  data-testid={`chain-${c.position}`}
                >
                  <span className="chain-pos">{c.position === 'current' ? t('history.this') : c.position === 'before' ? t('history.older') : t('history.newer')}</span>
                  <span className="chain-text">{snippet(c.content || t('conflict.empty'), 34)}</span>
                  {c.deleted && <span className="muted"> {t('history.deletedParen')}</span>}
                </button>
              </li>
            ))}
          </ol>
        </div>
      )}

      {entries.length === 0 ? (
        <div className="muted small">{filter ? t('history.noChangesByActor') : t('history.empty')}</div>
      ) : (
        <ol className="history-list">
          {entries.map((e) => {
            const key = `${e.revision}-${e.seq}`;
            const otherVersion = e.entity === 'node' && (e.node_id ?? e.target_id) !== nodeId;
            const badge = reasonBadge(e);
            const canRevert = !readOnly && e.revertible && e !== latestOwn;
            return (
              <li key={key} className={`history-entry actor-kind-${e.actor?.kind ?? 'user'}`} data-testid={`history-entry-${key}`} data-actor-kind={e.actor?.kind}>
                <div className="history-line">
                  <ActorLine entry={e} />
                </div>
                <div className="history-what">
                  <span className="history-action">{describeEntry(e)}</span>
                  {e.entity === 'edge' && (
                    <span className="muted" dir="auto" data-testid="history-edge-other">
                      {' · '}
                      {edgeFromNode(e, nodeId)}
                    </span>
                  )}
                  {otherVersion && (
                    <span className="muted small">
                      {' · '}
                      {chain.find((c) => c.id === (e.node_id ?? e.target_id))?.position === 'after' ? t('history.onNewer') : t('history.onOlder')}
                    </span>
                  )}
                  {badge && <span className="reason-chip">{badge}</span>}
                </div>
                <div className="muted small" title={formatDateTime(e.at)}>
                  {timeAgo(e.at)} · {t('history.rev', { revision: e.revision })}
                </div>
                {e.action === 'updated' && <DiffRows rows={e.diff} />}
                {e.action === 'created' && e.entity === 'node' && <DiffRows rows={e.diff.filter((r) => r.field !== 'x' && r.field !== 'y')} mode="created" />}
                {canRevert && (
                  <button
                    className="link-btn revert-btn"
                    disabled={reverting !== null}
                    onClick={() => void revert(e)}
                    data-testid={`history-revert-${e.revision}`}
                  >
                    <HistoryIcon size={12} /> {reverting === key ? t('history.reverting') : t('history.revert')}
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}
