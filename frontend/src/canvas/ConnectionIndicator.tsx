import { useEffect, useState } from 'react';
import type { EngineState, SyncEngine } from '../sync/engine';

/** online / reconnecting / offline, with the number of queued edits. */
export function ConnectionIndicator({ state, engine }: { state: EngineState; engine: SyncEngine }) {
  const status = state.status === 'connecting' ? 'reconnecting' : state.status;
  const pending = state.pending.length;
  const [, tick] = useState(0);
  useEffect(() => {
    if (!state.nextRetryAt) return;
    const t = setInterval(() => tick((n) => n + 1), 500);
    return () => clearInterval(t);
  }, [state.nextRetryAt]);

  const secs = state.nextRetryAt ? Math.max(0, Math.ceil((state.nextRetryAt - Date.now()) / 1000)) : null;
  let title = 'Connected: edits sync live';
  if (state.status === 'connecting') title = 'Connecting…';
  else if (status === 'reconnecting') title = secs ? `Connection lost. Retrying in ${secs}s` : 'Reconnecting…';
  else if (status === 'offline') title = state.revoked ? 'Access revoked' : 'Offline: edits are queued and sent when you reconnect';

  return (
    <div className={`conn conn-${status}`} title={title}>
      <span className="conn-dot" aria-hidden="true" />
      <span className="conn-label" data-testid="connection-status" data-status={state.status}>
        {status}
      </span>
      <span className={`conn-pending${pending ? '' : ' none'}`} title={`${pending} edit(s) waiting for the server`}>
        <span data-testid="pending-count">{pending}</span> queued
      </span>
      {status === 'reconnecting' && state.nextRetryAt && (
        <button className="link-btn small" onClick={() => engine.reconnectNow()}>
          Retry now
        </button>
      )}
      {status === 'offline' && state.forcedOffline && (
        <button className="link-btn small" onClick={() => engine.goOnline()}>
          Go online
        </button>
      )}
    </div>
  );
}
