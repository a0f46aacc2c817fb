// A node's timeline (GET …/nodes/{id}/timeline/): every change with its actor
// (a person, or the agent for a person, with the conversation), field diffs,
// the superseded chain before and after it, a filter by actor kind and
// "Revert to this version" (POST …/revert/, a new logged change).
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../api/client';
import type { NodeTimeline, TimelineEntry } from '../api/types';
import { DiffRows } from '../components/DiffRows';
import { ArrowRightIcon, BotIcon, ChatIcon, HistoryIcon } from '../components/Icons';
import { formatDateTime, snippet, timeAgo } from '../lib/format';
import { toast } from '../lib/toast';
import { actorLabel, describeEntry, edgeFromNode, reasonBadge } from '../history/describe';
import { useCanvasActions } from './context';

const FILTERS: { id: string; label: string }[] = [
  { id: '', label: 'All' },
  { id: 'user', label: 'People' },
  { id: 'agent', label: 'Agent' },
  { id: 'system', label: 'System' },
];

export function ActorLine({ entry }: { entry: TimelineEntry }) {
  const { overlay } = useCanvasActions();
  const a = entry.actor;
  return (
    <span className={`actor actor-${a?.kind ?? 'user'}`} data-testid="history-actor">
      {a?.kind === 'agent' && <BotIcon size={12} />}
      <strong>{actorLabel(a)}</strong>
      {a?.approved_by && <span className="muted"> · approved by {a.approved_by.username}</span>}
      {a?.conversation_id != null && (
        <>
          {' · '}
          <button
            type="button"
            className="link-btn conv-link"
            title="Open the conversation in the chat (if it is yours)"
            onClick={(ev) => {
              ev.stopPropagation();
              overlay.openConversation(a.conversation_id as number);
            }}
            data-testid="history-conversation-link"
          >
            <ChatIcon size={11} /> conversation #{a.conversation_id}
          </button>
        </>
      )}
    </span>
  );
}

export function NodeHistory({ canvasId, nodeId, version }: { canvasId: string; nodeId: string; version: number }) {
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
      .then((t) => alive && setData(t))
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
        if (res.fields.length === 0 && !res.recreated) toast.info('The node already looks like this version.', 'Nothing to revert');
        else toast.success(`${res.recreated ? 'Restored the deleted node' : `Restored ${res.fields.join(', ')}`} as of revision ${e.revision}.`, 'Reverted');
        setTick((t) => t + 1);
      } catch (err) {
        toast.error(errorMessage(err), 'Could not revert');
      } finally {
        setReverting(null);
      }
    },
    [canvasId, nodeId],
  );

  if (error) return <div className="field-hint error">{error}</div>;
  if (!data) return <div className="muted small" data-testid="node-history-loading">Loading history…</div>;

  const entries = [...data.entries].reverse();
  const chain = data.chain;
  const doc = engine.getSnapshot().doc;
  // The newest node entry for this node: reverting to it changes nothing.
  const latestOwn = entries.find((e) => e.entity === 'node' && (e.node_id ?? e.target_id) === nodeId);

  return (
    <div className="node-history" data-testid="node-history">
      <div className="history-toolbar">
        <div className="segmented small" role="radiogroup" aria-label="Filter by actor">
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
              {f.label}
            </button>
          ))}
        </div>
      </div>

      {chain.length > 1 && (
        <div className="history-chain" data-testid="history-chain">
          <div className="history-chain-title">Versions of this fact</div>
          <ol>
            {chain.map((c, i) => (
              <li key={c.id} className={`chain-item chain-${c.position}${c.deleted ? ' deleted' : ''}`}>
                {i > 0 && <ArrowRightIcon size={11} className="chain-arrow" />}
                <button
                  type="button"
                  className="chain-btn"
                  disabled={c.position === 'current' || c.deleted || !doc.nodes.has(c.id)}
                  onClick={() => focusNode(c.id)}
                  title={c.deleted ? 'deleted' : c.content}
                  data-testid={`chain-${c.position}`}
                >
                  <span className="chain-pos">{c.position === 'current' ? 'this' : c.position === 'before' ? 'older' : 'newer'}</span>
                  <span className="chain-text">{snippet(c.content || '(empty)', 34)}</span>
                  {c.deleted && <span className="muted"> (deleted)</span>}
                </button>
              </li>
            ))}
          </ol>
        </div>
      )}

      {entries.length === 0 ? (
        <div className="muted small">{filter ? 'No changes by this kind of actor.' : 'No history yet.'}</div>
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
                  {otherVersion && <span className="muted small"> · on the {chain.find((c) => c.id === (e.node_id ?? e.target_id))?.position === 'after' ? 'newer' : 'older'} version</span>}
                  {badge && <span className="reason-chip">{badge}</span>}
                </div>
                <div className="muted small" title={formatDateTime(e.at)}>
                  {timeAgo(e.at)} · rev {e.revision}
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
                    <HistoryIcon size={12} /> {reverting === key ? 'Reverting…' : 'Revert to this version'}
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
