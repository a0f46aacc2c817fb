import { useCallback } from 'react';
import type { Op } from '../../api/types';
import { EMPTY_SELECTION, type Selection } from '../../canvas/context';
import type { SyncEngine } from '../../sync/engine';

/** Delete the selected nodes and links in one op (links of deleted nodes go with them on the server). */
export function useDeleteSelection(engine: SyncEngine, readOnly: boolean, selection: Selection, setSelection: (s: Selection) => void) {
  return useCallback(() => {
    if (readOnly) return;
    const doc = engine.getSnapshot().doc;
    const nodeIds = [...selection.nodes].filter((id) => doc.nodes.has(id));
    const gone = new Set(nodeIds);
    const edgeIds = [...selection.edges].filter((id) => {
      const e = doc.edges.get(id);
      return e && !gone.has(e.source) && !gone.has(e.target);
    });
    const ops: Op[] = [
      ...nodeIds.map((id): Op => ({ type: 'node.delete', id })),
      ...edgeIds.map((id): Op => ({ type: 'edge.delete', id })),
    ];
    if (ops.length === 0) return;
    engine.submit(ops.length === 1 ? ops[0] : { type: 'batch', ops });
    setSelection(EMPTY_SELECTION);
  }, [engine, readOnly, selection, setSelection]);
}
