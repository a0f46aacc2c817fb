// window.__canvasweb: a stable handle for end-to-end tests and debugging.
import type { Op } from '../api/types';
import type { SyncEngine } from '../sync/engine';

export interface CanvaswebHandle {
  /** displayed state (server + optimistic pending ops); null state when no canvas is open */
  getState(): ReturnType<SyncEngine['debugState']> | { revision: null; nodes: []; edges: []; pending: []; status: 'offline' };
  /** close the socket and block reconnects until goOnline() */
  goOffline(): void;
  goOnline(): void;
  /** submit an op through the sync engine; returns its client_op_id (or null without a canvas) */
  submit(op: Op): string | null;
  /** the open canvas id, or null */
  canvasId(): string | null;
  /** the raw engine (debugging only) */
  engine(): SyncEngine | null;
  /** select a node and centre it (as clicking a successor link does) */
  focusNode(id: string): void;
}

let current: { engine: SyncEngine; canvasId: string; focusNode: (id: string) => void } | null = null;

const EMPTY = { revision: null, nodes: [], edges: [], pending: [], status: 'offline' } as const;

export const handle: CanvaswebHandle = {
  getState: () => (current ? current.engine.debugState() : { ...EMPTY, nodes: [], edges: [], pending: [] }),
  goOffline: () => current?.engine.goOffline(),
  goOnline: () => current?.engine.goOnline(),
  submit: (op) => (current ? current.engine.submit(op) : null),
  canvasId: () => current?.canvasId ?? null,
  engine: () => current?.engine ?? null,
  focusNode: (id) => current?.focusNode(id),
};

export function installTestHooks() {
  (window as unknown as { __canvasweb: CanvaswebHandle }).__canvasweb = handle;
}

export function registerCanvas(engine: SyncEngine, canvasId: string, focusNode: (id: string) => void) {
  current = { engine, canvasId, focusNode };
  return () => {
    if (current?.engine === engine) current = null;
  };
}
