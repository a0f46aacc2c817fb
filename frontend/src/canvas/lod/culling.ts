// Viewport culling for big canvases. React Flow mounts every node it is given
// once, to measure it (its own onlyRenderVisibleElements renders unmeasured
// nodes anyway), so on 5,000 nodes the open took seconds. Above CULL_MIN_NODES
// we hand React Flow only the nodes in a window around the viewport, plus the
// ones that must stay (selected, dragged, ghosts) and the far ends of edges
// that touch the window. The window is snapped to a grid so it changes only
// when the viewport crosses a cell, not on every pan frame.
import { weightStyle } from '../kinds';

/** canvases with more nodes than this are culled (the mini map, which needs every node, is off above it too) */
export const CULL_MIN_NODES = 1000;
/** height assumed for a node React Flow has not measured yet */
export const ESTIMATED_NODE_H = 110;

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** the part of a node the culling needs */
export interface Placed {
  id: string;
  position: { x: number; y: number };
  measured?: { width?: number; height?: number };
  data: { node?: { weight?: number } };
}

const pow2ceil = (v: number) => 2 ** Math.ceil(Math.log2(Math.max(1, v)));

/**
 * The window (flow coordinates) of nodes to mount for a React Flow transform
 * [x, y, zoom] and a pane size: the visible area grown by half a cell on each
 * side and snapped outwards to cells. A cell is a power of two between a
 * quarter and a half of the visible area's longer side, so small zooms and pans
 * keep the same window (equal objects for sameRect).
 */
export function cullWindow(transform: readonly [number, number, number], pane: { width: number; height: number }): Rect {
  const [tx, ty, zoom] = transform;
  const z = zoom > 0 ? zoom : 1;
  const w = Math.max(1, pane.width) / z;
  const h = Math.max(1, pane.height) / z;
  const x = -tx / z;
  const y = -ty / z;
  const cell = pow2ceil(Math.max(w, h) / 4);
  const margin = cell / 2;
  const x0 = Math.floor((x - margin) / cell) * cell;
  const y0 = Math.floor((y - margin) / cell) * cell;
  const x1 = Math.ceil((x + w + margin) / cell) * cell;
  const y1 = Math.ceil((y + h + margin) / cell) * cell;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

export const sameRect = (a: Rect, b: Rect) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

export function nodeRect(n: Placed): Rect {
  return {
    x: n.position.x,
    y: n.position.y,
    width: n.measured?.width ?? weightStyle(n.data.node?.weight ?? 1).width,
    height: n.measured?.height ?? ESTIMATED_NODE_H,
  };
}


/** Whether nodeRect(n) overlaps the window, without allocating a rect per node (cullNodes runs over every node) */
function inWindow(n: Placed, w: Rect): boolean {
  const { x, y } = n.position;
  if (x >= w.x + w.width || y >= w.y + w.height) return false;
  const height = n.measured?.height ?? ESTIMATED_NODE_H;
  if (y + height <= w.y) return false;
  const width = n.measured?.width ?? weightStyle(n.data.node?.weight ?? 1).width;
  return x + width > w.x;
}

/** node id -> ids of the nodes it shares an edge with */
export type Neighbours = ReadonlyMap<string, readonly string[]>;

export function neighboursOf(edges: Iterable<{ source: string; target: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (a: string, b: string) => {
    const list = out.get(a);
    if (list) list.push(b);
    else out.set(a, [b]);
  };
  for (const e of edges) {
    add(e.source, e.target);
    add(e.target, e.source);
  }
  return out;
}

/**
 * The nodes to hand React Flow: those overlapping `window`, those in `keep`
 * (selected, being dragged, ...) and, so that an edge leaving the window is
 * still drawn, the other end of every edge of a node in the window. Order is
 * that of `nodes` (React Flow's stacking follows it).
 */
export function cullNodes<N extends Placed>(nodes: readonly N[], window: Rect, keep: (n: N) => boolean, neighbours?: Neighbours): N[] {
  const chosen = new Set<string>();
  for (const n of nodes) {
    if (keep(n) || inWindow(n, window)) chosen.add(n.id);
  }
  if (neighbours) {
    for (const id of [...chosen]) for (const other of neighbours.get(id) ?? []) chosen.add(other);
  }
  return chosen.size === nodes.length ? (nodes as N[]) : nodes.filter((n) => chosen.has(n.id));
}

/** Edges React Flow can draw: both ends among the mounted nodes. */
export function edgesBetween<E extends { source: string; target: string }>(edges: readonly E[], mounted: ReadonlySet<string>): E[] {
  return edges.filter((e) => mounted.has(e.source) && mounted.has(e.target));
}

/** Bounding box of all nodes (measured sizes where known), for fit-to-all on a culled canvas. */
export function boundsOf(nodes: Iterable<Placed>): Rect | null {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const n of nodes) {
    const r = nodeRect(n);
    minX = Math.min(minX, r.x);
    minY = Math.min(minY, r.y);
    maxX = Math.max(maxX, r.x + r.width);
    maxY = Math.max(maxY, r.y + r.height);
  }
  return Number.isFinite(minX) ? { x: minX, y: minY, width: maxX - minX, height: maxY - minY } : null;
}
