// Pointer use of the level-of-detail layer (LodLayer.tsx), whose boxes are not
// DOM nodes: a click on a box selects its node (Shift/Ctrl/Cmd adds it), a
// double-click zooms in to it, a Shift-drag box selects the boxes inside, and
// the pointer shows a hand over a box. A selected node becomes a real React
// Flow node again, so it can be dragged.
import { useCallback, useEffect, useMemo, useRef, type Dispatch, type MouseEvent as ReactMouseEvent, type RefObject, type SetStateAction } from 'react';
import { useReactFlow, useStoreApi, type ReactFlowState } from '@xyflow/react';
import type { Selection } from '../context';
import { boxesInside, hitTest, type Scene } from './lodScene';

interface Options {
  active: boolean;
  sceneRef: RefObject<Scene | null>;
  wrapperRef: RefObject<HTMLDivElement | null>;
  selection: Selection;
  setSelection: Dispatch<SetStateAction<Selection>>;
  focusNode(id: string): void;
}

const extends_ = (e: { shiftKey: boolean; metaKey: boolean; ctrlKey: boolean }) => e.shiftKey || e.metaKey || e.ctrlKey;

export function useLodPointer({ active, sceneRef, wrapperRef, selection, setSelection, focusNode }: Options) {
  const rf = useReactFlow();
  const store = useStoreApi();

  const nodeAt = useCallback(
    (clientX: number, clientY: number): string | null => {
      const scene = sceneRef.current;
      if (!active || !scene) return null;
      return hitTest(scene, rf.screenToFlowPosition({ x: clientX, y: clientY }, { snapToGrid: false }));
    },
    [active, sceneRef, rf],
  );

  /** a click on the pane: true when it hit a box (and selected its node) */
  const onPaneClick = useCallback(
    (e: ReactMouseEvent): boolean => {
      const id = nodeAt(e.clientX, e.clientY);
      if (!id) return false;
      const nodes = new Set(extends_(e) ? selection.nodes : []);
      nodes.add(id);
      // React Flow clears its selection right after this callback: ours is set after that
      queueMicrotask(() => setSelection({ nodes, edges: new Set() }));
      return true;
    },
    [nodeAt, selection.nodes, setSelection],
  );

  /** a double-click on the pane: true when it hit a box (and zoomed in to it) */
  const onPaneDoubleClick = useCallback(
    (e: ReactMouseEvent): boolean => {
      const id = nodeAt(e.clientX, e.clientY);
      if (id) focusNode(id);
      return !!id;
    },
    [nodeAt, focusNode],
  );

  // a hand over a box (no React state: a class on the wrapper)
  const onPointerMove = useCallback(
    (e: { clientX: number; clientY: number; buttons: number }) => {
      const el = wrapperRef.current;
      if (!el || (!active && !el.classList.contains('lod-hover'))) return;
      el.classList.toggle('lod-hover', e.buttons === 0 && nodeAt(e.clientX, e.clientY) !== null);
    },
    [active, nodeAt, wrapperRef],
  );

  // React Flow forgets its selection rectangle before onSelectionEnd: keep the last one seen
  const lastRect = useRef<ReactFlowState['userSelectionRect']>(null);
  useEffect(() => {
    if (!active) return;
    return store.subscribe((s) => {
      if (s.userSelectionRect) lastRect.current = s.userSelectionRect;
    });
  }, [active, store]);
  const onSelectionStart = useCallback(() => {
    lastRect.current = null;
  }, []);
  const onSelectionEnd = useCallback(() => {
    const r = lastRect.current;
    const scene = sceneRef.current;
    lastRect.current = null;
    if (!active || !r || !scene) return;
    const [tx, ty, zoom] = store.getState().transform;
    const area = { x: (r.x - tx) / zoom, y: (r.y - ty) / zoom, width: r.width / zoom, height: r.height / zoom };
    const ids = boxesInside(scene, area);
    if (ids.length) setSelection((prev) => ({ nodes: new Set([...prev.nodes, ...ids]), edges: prev.edges }));
  }, [active, sceneRef, store, setSelection]);

  return useMemo(
    () => ({ onPaneClick, onPaneDoubleClick, onPointerMove, onSelectionStart, onSelectionEnd }),
    [onPaneClick, onPaneDoubleClick, onPointerMove, onSelectionStart, onSelectionEnd],
  );
}
