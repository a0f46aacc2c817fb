// Contexts shared by the canvas components. Actions are stable; the editing id
// changes rarely, so node cards do not re-render on every sync update.
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { SyncEngine, EngineState, PresencePeer } from '../sync/engine';
import type { Op } from '../api/types';
import type { OverlayStore } from './overlay';

export interface CanvasActions {
  engine: SyncEngine;
  canvasId: string;
  readOnly: boolean;
  submit(op: Op): string | null;
  startEditing(id: string | null): void;
  focusNode(id: string): void;
  selectOnly(nodeIds: string[], edgeIds?: string[]): void;
  /** rendered size of a node, when React Flow has measured it */
  measure(id: string): { width?: number; height?: number } | undefined;
  /** preview highlights, filters, ghost proposals, viewport */
  overlay: OverlayStore;
  /** my role on the canvas (null until known) */
  role: string | null;
  /** centre the view on a flow point (e.g. a ghost proposal) */
  focusPoint(x: number, y: number): void;
}

export const CanvasActionsContext = createContext<CanvasActions | null>(null);
export const EditingContext = createContext<string | null>(null);

export function useCanvasActions(): CanvasActions {
  const ctx = useContext(CanvasActionsContext);
  if (!ctx) throw new Error('useCanvasActions outside a canvas');
  return ctx;
}

export function useEditingId(): string | null {
  return useContext(EditingContext);
}

export function useEngineState(engine: SyncEngine): EngineState {
  return useSyncExternalStore(engine.subscribe, engine.getSnapshot, engine.getSnapshot);
}

/** The other people's presence (cursors, viewports): its own store, so cursor frames re-render only its readers. */
export function usePeers(engine: SyncEngine): readonly PresencePeer[] {
  return useSyncExternalStore(engine.subscribePeers, engine.getPeers, engine.getPeers);
}

export interface Selection {
  nodes: ReadonlySet<string>;
  edges: ReadonlySet<string>;
}

export const EMPTY_SELECTION: Selection = { nodes: new Set(), edges: new Set() };
