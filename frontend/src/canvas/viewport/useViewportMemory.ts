// Opens the canvas at the remembered or a readable viewport and remembers
// where the user leaves it (per user and canvas, in localStorage).
import { useCallback, useEffect, useRef } from 'react';
import { useNodesInitialized, useReactFlow } from '@xyflow/react';
import type { Doc } from '../../sync/apply';
import { anchorNodes, loadViewport, readableViewport, saveViewport, type Viewport } from './readableViewport';

interface Options {
  canvasId: string;
  userId: number | null | undefined;
  synced: boolean;
  doc: Doc;
  pane: () => { width: number; height: number } | null;
  /** called once the opening viewport is set */
  onOpened(): void;
  /** open from declared sizes instead of waiting for React Flow to measure every node (culled canvases) */
  estimateSizes?: boolean;
}

export function useViewportMemory({ canvasId, userId, synced, doc, pane, onOpened, estimateSizes = false }: Options) {
  const rf = useReactFlow();
  const nodesInitialized = useNodesInitialized();
  const opened = useRef(false);

  useEffect(() => {
    if (opened.current || !synced || userId == null) return;
    const saved = loadViewport(userId, canvasId);
    if (!saved && doc.nodes.size > 0 && !nodesInitialized && !estimateSizes) return; // wait for sizes
    const size = pane();
    if (!size) return;
    opened.current = true;
    let target: Viewport = saved ?? { x: 0, y: 0, zoom: 1 };
    if (!saved && doc.nodes.size > 0) {
      target = readableViewport(anchorNodes(doc.nodes.values()), size, (id) => rf.getInternalNode(id)?.measured);
    }
    void rf.setViewport(target).then(onOpened);
  }, [synced, userId, canvasId, doc, nodesInitialized, rf, pane, onOpened, estimateSizes]);

  /** for React Flow's onMoveEnd */
  const remember = useCallback(
    (_e: unknown, v: Viewport) => {
      if (opened.current && userId != null) saveViewport(userId, canvasId, v);
    },
    [userId, canvasId],
  );
  return remember;
}
