// Linking two nodes: a drag from a handle onto another node (anywhere on it,
// not only on a handle) opens the relation picker there; the edge is created
// when a relation is picked.
import { useCallback, useState, type RefObject } from 'react';
import type { Connection, FinalConnectionState } from '@xyflow/react';
import type { Op, Relation } from '../api/types';
import { newEntityId } from '../sync/engine';

interface Options {
  readOnly: boolean;
  submit(op: Op): string | null;
  /** the pointer in client coordinates */
  pointer: RefObject<{ x: number; y: number } | null>;
  /** client coordinates to the canvas wrapper's */
  toLocal(clientX: number, clientY: number): { x: number; y: number };
}

export function useConnectDraft({ readOnly, submit, pointer, toLocal }: Options) {
  const [connectDraft, setConnectDraft] = useState<{ source: string; target: string; x: number; y: number } | null>(null);

  const onConnect = useCallback(
    (c: Connection) => {
      if (readOnly || !c.source || !c.target || c.source === c.target || c.target.startsWith('ghost-') || c.source.startsWith('ghost-')) return;
      const p = pointer.current ?? { x: 0, y: 0 };
      setConnectDraft({ source: c.source, target: c.target, ...toLocal(p.x, p.y) });
    },
    [readOnly, toLocal, pointer],
  );

  // Dropping a link anywhere on another node (not only on a handle) connects to it.
  const onConnectEnd = useCallback(
    (e: MouseEvent | TouchEvent, conn: FinalConnectionState) => {
      if (readOnly || conn.isValid || !conn.fromNode) return;
      const pt = 'changedTouches' in e ? e.changedTouches[0] : (e as MouseEvent);
      if (!pt) return;
      const el = document.elementFromPoint(pt.clientX, pt.clientY) as HTMLElement | null;
      const targetId = el?.closest<HTMLElement>('.react-flow__node')?.dataset.id;
      if (!targetId || targetId === conn.fromNode.id || targetId.startsWith('ghost-')) return;
      setConnectDraft({ source: conn.fromNode.id, target: targetId, ...toLocal(pt.clientX, pt.clientY) });
    },
    [readOnly, toLocal],
  );

  const pickRelation = useCallback(
    (relation: Relation) => {
      if (!connectDraft) return;
      const id = newEntityId();
      submit({ type: 'edge.create', edge: { id, source: connectDraft.source, target: connectDraft.target, relation } });
      setConnectDraft(null);
    },
    [connectDraft, submit],
  );

  // Zoomed out, a double-click on a block zooms in to its card (editing a block would show nothing).
  return { connectDraft, setConnectDraft, onConnect, onConnectEnd, pickRelation };
}
