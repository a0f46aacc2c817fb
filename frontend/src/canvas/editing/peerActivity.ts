// Who is editing or dragging which node, from the presence of the others.
import { createContext, useContext, useMemo } from 'react';
import type { PresencePeer } from '../../sync/engine';

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

/** Activity that keeps its identity while only cursors move (cards re-render only when it changes). */
export function usePeerActivity(peers: readonly PresencePeer[]): PeerActivity {
  const key = peers
    .map((p) => `${p.connectionId}:${p.editing ?? ''}:${p.dragging ? `${p.dragging.id},${p.dragging.x},${p.dragging.y}` : ''}`)
    .join('|');
  // eslint-disable-next-line react-hooks/exhaustive-deps
  return useMemo(() => activityOf(peers), [key]);
}
