// Where the canvas opens: the user's last viewport on this canvas, else a
// readable zoom (>= MIN_READABLE_ZOOM) around the pinned anchors. Fitting the
// whole canvas shrinks 13 px text to 5 px on anything but a tiny canvas.
import type { CanvasNode } from '../../api/types';
import { weightStyle } from '../kinds';

export const MIN_READABLE_ZOOM = 0.8;
const MAX_OPEN_ZOOM = 1;
const PADDING = 48;
const DEFAULT_H = 110;

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export type Measure = (id: string) => { width?: number; height?: number } | undefined;

/** The nodes the canvas opens around: pinned live nodes, else the heaviest live nodes, else all. */
export function anchorNodes(nodes: Iterable<CanvasNode>): CanvasNode[] {
  const live = [...nodes].filter((n) => !n.archived && !n.superseded_by);
  const pinned = live.filter((n) => n.pinned);
  if (pinned.length) return pinned;
  if (!live.length) return [...nodes];
  const top = Math.max(...live.map((n) => n.weight ?? 1));
  const heavy = live.filter((n) => (n.weight ?? 1) === top);
  return heavy.length < live.length ? heavy : live;
}

/**
 * A viewport (React Flow transform) that shows `anchors` at a zoom between
 * MIN_READABLE_ZOOM and 1. When they do not fit at the readable zoom, it
 * centres on their bounding box and lets the rest run off-screen.
 */
export function readableViewport(anchors: CanvasNode[], pane: { width: number; height: number }, measure?: Measure): Viewport {
  if (!anchors.length || pane.width <= 0 || pane.height <= 0) return { x: 0, y: 0, zoom: 1 };
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const n of anchors) {
    const m = measure?.(n.id);
    const w = m?.width ?? weightStyle(n.weight).width;
    const h = m?.height ?? DEFAULT_H;
    minX = Math.min(minX, n.x);
    minY = Math.min(minY, n.y);
    maxX = Math.max(maxX, n.x + w);
    maxY = Math.max(maxY, n.y + h);
  }
  const fit = Math.min((pane.width - 2 * PADDING) / (maxX - minX), (pane.height - 2 * PADDING) / (maxY - minY));
  const zoom = Math.min(MAX_OPEN_ZOOM, Math.max(MIN_READABLE_ZOOM, Number.isFinite(fit) ? fit : 1));
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  return { x: pane.width / 2 - cx * zoom, y: pane.height / 2 - cy * zoom, zoom };
}

// ------------------------------------------------------------ memory (per user and canvas)

export function viewportKey(userId: number | string, canvasId: string | number): string {
  return `canvasweb.viewport.${userId}.${canvasId}`;
}

export function loadViewport(userId: number | string, canvasId: string | number): Viewport | null {
  try {
    const raw = window.localStorage.getItem(viewportKey(userId, canvasId));
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<Viewport>;
    if ([v.x, v.y, v.zoom].every((n) => typeof n === 'number' && Number.isFinite(n)) && (v.zoom as number) > 0) {
      return { x: v.x as number, y: v.y as number, zoom: v.zoom as number };
    }
  } catch {
    /* storage blocked or bad JSON: fall back to the anchors */
  }
  return null;
}

export function saveViewport(userId: number | string, canvasId: string | number, v: Viewport): void {
  try {
    const round = (n: number) => Math.round(n * 100) / 100;
    window.localStorage.setItem(viewportKey(userId, canvasId), JSON.stringify({ x: round(v.x), y: round(v.y), zoom: Math.round(v.zoom * 1000) / 1000 }));
  } catch {
    /* storage blocked */
  }
}
