import { useEffect, useState } from 'react';
import { SyncEngine, type Notice } from '../sync/engine';
import { toast } from '../lib/toast';
import { indexedDbPendingStore } from '../sync/pendingStore';
import { textOfOp } from './editing/editSession';

export function canvasSocketUrl(canvasId: string, loc: Location = window.location): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${loc.host}/ws/canvases/${encodeURIComponent(canvasId)}/`;
}

const REJECT_HINT: Record<string, string> = {
  FORBIDDEN: 'You do not have permission to do that.',
  NOT_FOUND: 'That item no longer exists — someone may have deleted it.',
  CONFLICT: 'That conflicts with an existing item.',
  TOO_LARGE: 'That edit is too large.',
  RATE_LIMITED: 'Too many edits at once. They will be sent shortly.',
};

export function noticeToToast(n: Notice) {
  switch (n.kind) {
    case 'reject': {
      // A stale content edit opens the conflict choice instead (canvas/editing/ConflictDialog).
      if (n.code === 'CONFLICT' && n.current) return;
      const hint = n.code ? REJECT_HINT[n.code] : undefined;
      const msg = n.message && n.message !== hint ? (hint && n.code !== 'INVALID' ? `${hint} (${n.message})` : n.message) : hint ?? 'The server rejected an edit.';
      toast.error(textOfOp(n.op) ? `${msg} Your text is back in the editor.` : msg, 'Edit rejected');
      return;
    }
    case 'too-large':
      toast.error(textOfOp(n.op) ? `${n.message} Your text is back in the editor.` : n.message, 'Edit not sent');
      return;
    case 'revoked':
      toast.error(n.message, 'Access revoked');
      return;
    case 'error':
      toast.error(n.message, 'Server error');
      return;
  }
}

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
    setEngine(e);
    return () => {
      window.removeEventListener('online', onOnline);
      window.removeEventListener('offline', onOffline);
      window.removeEventListener('beforeunload', onBeforeUnload);
      off();
      e.stop();
    };
  }, [canvasId]);
  return engine;
}
