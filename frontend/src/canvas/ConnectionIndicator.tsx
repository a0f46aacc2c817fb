import { useEffect, useState } from 'react';
import type { EngineState, SyncEngine } from '../sync/engine';
import { Trans, useTranslation } from 'react-i18next';

/** online / reconnecting / offline, with the number of queued edits. */
export function ConnectionIndicator({ state, engine }: { state: EngineState; engine: SyncEngine }) {
  const { t } = useTranslation('canvas');
  const status = state.status === 'connecting' ? 'reconnecting' : state.status;
  const pending = state.pending.length;
  const [, tick] = useState(0);
  useEffect(() => {
    if (!state.nextRetryAt) return;
    const t = setInterval(() => tick((n) => n + 1), 500);
    return () => clearInterval(t);
  }, [state.nextRetryAt]);

  const secs = state.nextRetryAt ? Math.max(0, Math.ceil((state.nextRetryAt - Date.now()) / 1000)) : null;
  let title = t('connection.connectedHint');
  if (state.status === 'connecting') title = t('connection.connecting');
  else if (status === 'reconnecting') title = secs ? t('connection.retryingIn', { count: secs }) : t('connection.reconnectingHint');
  else if (status === 'offline') title = state.revoked ? t('connection.revoked') : state.networkDown ? t('connection.noNetworkHint') : t('connection.offlineHint');

  return (
    <div className={`conn conn-${status}`} title={title}>
      <span className="conn-dot" aria-hidden="true" />
      <span className="conn-label" data-testid="connection-status" data-status={state.status}>
        {t(`connection.status.${status}`)}
      </span>
      <span className={`conn-pending${pending ? '' : ' none'}`} title={t('connection.pendingHint', { count: pending })}>
        <Trans t={t} i18nKey="connection.queued" values={{ count: pending }} components={{ n: <span data-testid="pending-count" /> }} />
      </span>
      {/* Offline for want of a network there is nothing to retry: the `online` event reconnects. */}
      {status === 'reconnecting' && state.nextRetryAt && (
        <button className="link-btn small" onClick={() => engine.reconnectNow()} data-testid="connection-retry">
          {t('connection.retryNow')}
        </button>
      )}
      {status === 'offline' && state.forcedOffline && (
        <button className="link-btn small" onClick={() => engine.goOnline()}>
          {t('connection.goOnline')}
        </button>
      )}
    </div>
  );
}
