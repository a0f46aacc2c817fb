import { useCallback } from 'react';
import type { ReactFlowInstance } from '@xyflow/react';
import type { Selection } from '../../canvas/context';
import type { SyncEngine } from '../../sync/engine';

/** Centre the view on a node (and select it) or on a point, never zooming out below 0.9. */
export function useCanvasFocus(engine: SyncEngine, rf: ReactFlowInstance, setSelection: (s: Selection) => void) {
  const focusNode = useCallback(
    (id: string) => {
      const n = engine.getNode(id);
      if (!n) return;
      const internal = rf.getInternalNode(id);
      const w = internal?.measured?.width ?? 200;
      const h = internal?.measured?.height ?? 80;
      void rf.setCenter(n.x + w / 2, n.y + h / 2, { zoom: Math.max(rf.getZoom(), 0.9), duration: 350 });
      setSelection({ nodes: new Set([id]), edges: new Set() });
    },
    [engine, rf, setSelection],
  );

  const focusPoint = useCallback(
    (x: number, y: number) => void rf.setCenter(x, y, { zoom: Math.max(rf.getZoom(), 0.9), duration: 350 }),
    [rf],
  );
  return { focusNode, focusPoint };
}
