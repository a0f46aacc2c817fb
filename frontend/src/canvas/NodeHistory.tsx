import { useEffect, useState } from 'react';
import { api, errorMessage } from '../api/client';
import type { HistoryEntry } from '../api/types';
import { formatDateTime } from '../lib/format';

function actorName(actor: unknown): string {
  if (!actor) return 'unknown';
  if (typeof actor === 'string') return actor;
  const a = actor as { kind?: string; user?: { username?: string } | null; username?: string; on_behalf_of?: { username?: string } | null };
  if (a.kind === 'agent') return `agent${a.on_behalf_of?.username ? ` for ${a.on_behalf_of.username}` : a.user?.username ? ` for ${a.user.username}` : ''}`;
  return a.user?.username ?? a.username ?? a.kind ?? 'unknown';
}

export function NodeHistory({ canvasId, nodeId, version }: { canvasId: string; nodeId: string; version: number }) {
  const [entries, setEntries] = useState<HistoryEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let alive = true;
    setError(null);
    api
      .nodeHistory(canvasId, nodeId)
      .then((list) => alive && setEntries(Array.isArray(list) ? list : []))
      .catch((err) => alive && setError(errorMessage(err)));
    return () => {
      alive = false;
    };
  }, [canvasId, nodeId, version]);

  if (error) return <div className="field-hint error">{error}</div>;
  if (!entries) return <div className="muted small">Loading history…</div>;
  if (entries.length === 0) return <div className="muted small">No history yet.</div>;
  return (
    <ol className="history-list" data-testid="node-history">
      {[...entries].reverse().map((e, i) => (
        <li key={`${e.revision}-${i}`}>
          <div className="history-line">
            <span className="history-action">{e.action}</span>
            {e.fields && e.fields.length > 0 && <span className="muted"> {e.fields.join(', ')}</span>}
          </div>
          <div className="muted small">
            {actorName(e.actor)} · rev {e.revision} · {formatDateTime(e.at)}
          </div>
        </li>
      ))}
    </ol>
  );
}
