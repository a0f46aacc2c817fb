import { useEffect, useState } from 'react';
import i18n from 'i18next';
import { SyncEngine, type Notice } from '../sync/engine';
import { toast } from '../lib/toast';
import { indexedDbPendingStore } from '../sync/pendingStore';
import { textOfOp } from './editing/editSession';

export function canvasSocketUrl(canvasId: string, loc: Location = window.location): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${loc.host}/ws/canvases/${encodeURIComponent(canvasId)}/`;
}

export function noticeToToast(n: Notice) {
  const kept = (message: string) => (textOfOp(n.op) ? i18n.t('sync:textKept', { message }) : message);
  switch (n.kind) {
    case 'reject': {
      // A stale content edit opens the conflict choice instead (canvas/editing/ConflictDialog).
      if (n.code === 'CONFLICT' && n.current) return;
      toast.error(kept(n.message), i18n.t('sync:titles.rejected'));
      return;
    }
    case 'too-large':
      toast.error(kept(i18n.t('sync:tooLarge')), i18n.t('sync:titles.notSent'));
      return;
    case 'revoked':
      toast.error(i18n.t('sync:revoked'), i18n.t('sync:titles.revoked'));
      return;
    case 'error':
      toast.error(n.message, i18n.t('sync:titles.error'));
      return;
  }
}

/** longest wait for the socket to open before the workspace renders anyway */
export const FIRST_RENDER_WAIT_MS = 300;

/** One sync engine per open canvas, started on mount and stopped on unmount. */
export function useCanvasEngine(canvasId: string | null): SyncEngine | null {
  const [engine, setEngine] = useState<SyncEngine | null>(null);
  useEffect(() => {
    if (!canvasId) {
      setEngine(null);
      return;
    }
    const e = new SyncEngine({ url: canvasSocketUrl(canvasId), pendingStore: indexedDbPendingStore(canvasId) ?? undefined });
    const off = e.onNotice(noticeToToast);
    const onOnline = () => e.reconnectNow();
    const onOffline = () => e.connectionLost();
    // Unsent edits are kept in IndexedDB too, but the user should still know they have not reached the server.
    const onBeforeUnload = (ev: BeforeUnloadEvent) => {
      if (!e.hasUnsentOps()) return;
      ev.preventDefault();
      ev.returnValue = '';
    };
    window.addEventListener('online', onOnline);
    window.addEventListener('offline', onOffline);
    window.addEventListener('beforeunload', onBeforeUnload);
    e.start();
    // The workspace's first render keeps the main thread busy for a few hundred ms on a cold page: hand the
    // engine out (and so render it) only once the socket has opened and the hello is out, so that the
    // server builds the snapshot while the page renders instead of after (capped: offline opens too).
    let handed = false;
    const handOut = () => {
      if (handed) return;
      handed = true;
      offFirst();
      clearTimeout(cap);
      setEngine(e);
    };
    const offFirst = e.subscribe(handOut);
    const cap = setTimeout(handOut, FIRST_RENDER_WAIT_MS);
    return () => {
      handed = true;
      offFirst();
      clearTimeout(cap);
      window.removeEventListener('online', onOnline);
      window.removeEventListener('offline', onOffline);
      window.removeEventListener('beforeunload', onBeforeUnload);
      off();
      e.stop();
    };
  }, [canvasId]);
  return engine;
}
