// Who is editing or dragging which node, from the presence of the others.
import { createContext, useContext, useMemo, useSyncExternalStore } from 'react';
import type { PresencePeer, SyncEngine } from '../../sync/engine';

export interface PeerMark {
  username: string;
  color: string;
}

export interface PeerActivity {
  /** node id → people with an editor open on it */
  editors: ReadonlyMap<string, PeerMark[]>;
  /** node id → where someone is dragging it right now */
  dragged: ReadonlyMap<string, { x: number; y: number }>;
}

export const NO_ACTIVITY: PeerActivity = { editors: new Map(), dragged: new Map() };
export const PeerActivityContext = createContext<PeerActivity>(NO_ACTIVITY);

export function usePeerEditors(nodeId: string): PeerMark[] | undefined {
  return useContext(PeerActivityContext).editors.get(nodeId);
}

export function activityOf(peers: readonly PresencePeer[]): PeerActivity {
  const editors = new Map<string, PeerMark[]>();
  const dragged = new Map<string, { x: number; y: number }>();
  for (const p of peers) {
    if (p.editing) {
      const list = editors.get(p.editing) ?? [];
      if (!list.some((m) => m.username === p.user.username)) list.push({ username: p.user.username, color: p.color });
      editors.set(p.editing, list);
    }
    if (p.dragging) dragged.set(p.dragging.id, { x: p.dragging.x, y: p.dragging.y });
  }
  return { editors, dragged };
}

/** what activityOf reads from the peers: equal keys give equal activity */
export function activityKey(peers: readonly PresencePeer[]): string {
  return peers
    .filter((p) => p.editing || p.dragging)
    .map((p) => `${p.connectionId}:${p.editing ?? ''}:${p.dragging ? `${p.dragging.id},${p.dragging.x},${p.dragging.y}` : ''}`)
    .join('|');
}

/**
 * The peers' activity, read from the engine's presence store. It keeps its
 * identity while only cursors and viewports move, so the canvas re-renders
 * only when someone starts or stops editing or dragging (or drags on).
 */
export function usePeerActivity(engine: SyncEngine): PeerActivity {
  const read = useMemo(() => {
    let seen: readonly PresencePeer[] | null = null;
    let key = '';
    let value = NO_ACTIVITY;
    return () => {
      const peers = engine.getPeers();
      if (peers === seen) return value;
      seen = peers;
      const k = activityKey(peers);
      if (k !== key) {
        key = k;
        value = activityOf(peers);
      }
      return value;
    };
  }, [engine]);
  return useSyncExternalStore(engine.subscribePeers, read, read);
}
