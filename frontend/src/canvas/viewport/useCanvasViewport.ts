// The canvas viewport as others and the chat see it (presence, the overlay's
// viewport) and how it opens: remembered or readable (useViewportMemory), then
// `opened` once it is set (a culled canvas mounts its nodes only then).
import { useCallback, useEffect, useState, type RefObject } from 'react';
import { useReactFlow, useStoreApi } from '@xyflow/react';
import type { EngineState, SyncEngine } from '../../sync/engine';
import type { OverlayStore } from '../overlay';
import { round2 } from '../flowNodes';
import { perfMark } from '../../lib/perfMarks';
import { useViewportMemory } from './useViewportMemory';

interface Options {
  wrapperRef: RefObject<HTMLDivElement | null>;
  /** the pointer in client coordinates, null when outside the canvas */
  pointer: RefObject<{ x: number; y: number } | null>;
  engine: SyncEngine;
  overlayStore: OverlayStore;
  canvasId: string;
  state: EngineState;
  /** open from declared node sizes (culled canvases: nothing is measured before the open) */
  estimateSizes: boolean;
}

export function useCanvasViewport({ wrapperRef, pointer, engine, overlayStore, canvasId, state, estimateSizes }: Options) {
  const rf = useReactFlow();

  const store = useStoreApi();
  const currentViewport = useCallback(() => {
    const el = wrapperRef.current;
    if (!el) return null;
    // called on every pan frame: React Flow's pane size, not a layout read, when it knows it
    const known = store.getState();
    const rect = known.width > 0 && known.height > 0 ? known : el.getBoundingClientRect();
    const { x, y, zoom } = rf.getViewport();
    const z = zoom || 1;
    return {
      x: round2((rect.width / 2 - x) / z),
      y: round2((rect.height / 2 - y) / z),
      zoom: Math.round(z * 1000) / 1000,
      width: Math.max(1, Math.round(rect.width)),
      height: Math.max(1, Math.round(rect.height)),
    };
  }, [rf, wrapperRef, store]);

  const sendPresence = useCallback(() => {
    const viewport = currentViewport();
    if (!viewport) return;
    overlayStore.setViewport(viewport);
    let cursor = null;
    if (pointer.current) {
      const fp = rf.screenToFlowPosition(pointer.current);
      cursor = { x: round2(fp.x), y: round2(fp.y) };
    }
    engine.setPresence(viewport, cursor);
  }, [engine, rf, currentViewport, overlayStore, pointer]);

  useEffect(() => {
    if (state.status === 'online') sendPresence();
  }, [state.status, sendPresence]);

  const paneSize = useCallback(() => {
    const rect = wrapperRef.current?.getBoundingClientRect();
    return rect ? { width: rect.width, height: rect.height } : null;
  }, [wrapperRef]);
  // React Flow mounts every node it gets once to measure it; on a big canvas that first pass draws cheap
  // blocks (lod/) or, when culled, waits for the opening viewport so that only nodes near it mount.
  const [opened, setOpened] = useState(false);
  const publishViewport = useCallback(() => {
    const v = currentViewport();
    if (v) overlayStore.setViewport(v);
    perfMark('viewport-set');
    requestAnimationFrame(() => setOpened(true));
  }, [currentViewport, overlayStore]);
  const rememberViewport = useViewportMemory({
    canvasId, userId: state.user?.id, synced: state.synced, doc: state.doc, pane: paneSize, onOpened: publishViewport, estimateSizes,
  });

  // Publish the viewport once on mount (the chat needs it before any pan).
  useEffect(() => {
    const v = currentViewport();
    if (v) overlayStore.setViewport(v);
  }, [currentViewport, overlayStore]);

  return { sendPresence, rememberViewport, opened };
}
