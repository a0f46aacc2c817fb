// Recent changes on the canvas (GET …/activity/), newest first; refreshed as
// revisions arrive. Clicking an item focuses its node.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, errorMessage } from '../api/client';
import type { TimelineEntry } from '../api/types';
import { ActivityIcon } from '../components/Icons';
import { formatDateTime, snippet, timeAgo } from '../lib/format';
import { toast } from '../lib/toast';
import { ActorLine } from '../canvas/NodeHistory';
import { useCanvasActions } from '../canvas/context';
import { describeEntry, reasonBadge } from './describe';

const FILTERS: { id: string; labelKey: string }[] = [
  { id: '', labelKey: 'activity.filterAll' },
  { id: 'user', labelKey: 'activity.filterPeople' },
  { id: 'agent', labelKey: 'activity.filterAgent' },
];

export function ActivityFeed({ revision }: { revision: number | null }) {
  const { t } = useTranslation('panels');
  const { canvasId, focusNode, engine } = useCanvasActions();
  const [items, setItems] = useState<TimelineEntry[] | null>(null);
  const [nextBefore, setNextBefore] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [loadingMore, setLoadingMore] = useState(false);
  const reqId = useRef(0);

  const load = useCallback(async () => {
    const id = ++reqId.current;
    try {
      const page = await api.activity(canvasId, { limit: 50, actorKind: filter || undefined });
      if (id !== reqId.current) return;
      setItems(page.items);
      setNextBefore(page.next_before);
      setError(null);
    } catch (err) {
      if (id === reqId.current) setError(errorMessage(err));
    }
  }, [canvasId, filter]);

  // Refresh shortly after new revisions (coalescing bursts).
  useEffect(() => {
    const timer = setTimeout(() => void load(), items === null ? 0 : 350);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [load, revision]);

  const more = async () => {
    if (nextBefore === null) return;
    setLoadingMore(true);
    try {
      const page = await api.activity(canvasId, { limit: 50, before: nextBefore, actorKind: filter || undefined });
      setItems((cur) => [...(cur ?? []), ...page.items]);
      setNextBefore(page.next_before);
    } catch (err) {
      toast.error(errorMessage(err), t('activity.olderFailed'));
    } finally {
      setLoadingMore(false);
    }
  };

  const open = (e: TimelineEntry) => {
    const id = e.node_id;
    if (!id) return;
    if (engine.getSnapshot().doc.nodes.has(id)) focusNode(id);
    else toast.info(t('activity.nodeGone'), t('activity.cannotShow'));
  };

  return (
    <div className="panel activity-panel" data-testid="activity-feed">
      <div className="panel-head">
        <h2 className="inspector-title">
          <ActivityIcon size={15} /> {t('activity.title')}
        </h2>
        <div className="segmented small" role="radiogroup" aria-label={t('activity.filterAria')}>
          {FILTERS.map((f) => (
            <button
              key={f.id || 'all'}
              type="button"
              role="radio"
              aria-checked={filter === f.id}
              className={`seg${filter === f.id ? ' active' : ''}`}
              onClick={() => {
                setItems(null);
                setFilter(f.id);
              }}
              data-testid={`activity-filter-${f.id || 'all'}`}
            >
              {t(f.labelKey)}
            </button>
          ))}
        </div>
      </div>
      {error && <div className="field-hint error">{error}</div>}
      {!items && !error && <div className="muted small">{t('activity.loading')}</div>}
      {items && items.length === 0 && <div className="panel-empty">{t('activity.empty')}</div>}
      {items && items.length > 0 && (
        <ol className="activity-list">
          {items.map((e) => {
            const badge = reasonBadge(e);
            const clickable = !!e.node_id;
            return (
              <li key={`${e.revision}-${e.seq}`}>
                <div
                  className={`activity-item actor-kind-${e.actor?.kind ?? 'user'}${clickable ? ' clickable' : ''}`}
                  role={clickable ? 'button' : undefined}
                  tabIndex={clickable ? 0 : undefined}
                  onClick={() => open(e)}
                  onKeyDown={(ev) => {
                    if ((ev.key === 'Enter' || ev.key === ' ') && ev.target === ev.currentTarget) {
                      ev.preventDefault();
                      open(e);
                    }
                  }}
                  data-testid={`activity-item-${e.revision}-${e.seq}`}
                  data-node-id={e.node_id ?? undefined}
                >
                  <div className="activity-top">
                    <ActorLine entry={e} />
                    <span className="muted small activity-time" title={formatDateTime(e.at)}>
                      {timeAgo(e.at)}
                    </span>
                  </div>
                  <div className="activity-what">
                    {describeEntry(e)}
                    {badge && <span className="reason-chip">{badge}</span>}
                  </div>
                  {e.summary && e.entity === 'node' && <div className="activity-summary">{snippet(e.summary, 90)}</div>}
                </div>
              </li>
            );
          })}
        </ol>
      )}
      {nextBefore !== null && (
        <button className="btn btn-small btn-block" onClick={() => void more()} disabled={loadingMore}>
          {loadingMore ? t('activity.loadingMore') : t('activity.older')}
        </button>
      )}
    </div>
  );
}
