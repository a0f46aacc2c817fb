import type { CanvasNode } from '../api/types';
import { weightStyle } from './kinds';

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

const DEFAULT_H = 110;
const GAP = 40;
/** a superseded card grows by its "Superseded →" row */
const GROWTH = 44;

function rectOf(n: CanvasNode, measure?: (id: string) => { width?: number; height?: number } | undefined): Rect {
  const m = measure?.(n.id);
  return { x: n.x, y: n.y, w: m?.width ?? weightStyle(n.weight).width, h: m?.height ?? DEFAULT_H };
}

const overlaps = (a: Rect, b: Rect) =>
  a.x < b.x + b.w + GAP / 2 && b.x < a.x + a.w + GAP / 2 && a.y < b.y + b.h + GAP / 2 && b.y < a.y + a.h + GAP / 2;

/**
 * A position next to `origin` (right, below, left, above, then further out)
 * where a card of the given size does not overlap existing nodes.
 */
export function findFreeSpot(
  origin: CanvasNode,
  nodes: Iterable<CanvasNode>,
  size: { w: number; h?: number },
  measure?: (id: string) => { width?: number; height?: number } | undefined,
): { x: number; y: number } {
  const others = [...nodes].map((n) => rectOf(n, measure));
  const o = rectOf(origin, measure);
  const h = size.h ?? DEFAULT_H;
  for (let ring = 1; ring <= 6; ring++) {
    const candidates = [
      { x: o.x + (o.w + GAP) * ring, y: o.y },
      { x: o.x, y: o.y + (o.h + GROWTH + GAP) * ring },
      { x: o.x - (size.w + GAP) * ring, y: o.y },
      { x: o.x, y: o.y - (h + GAP) * ring },
    ];
    for (const c of candidates) {
      const r = { ...c, w: size.w, h };
      if (!others.some((x) => overlaps(r, x))) return { x: Math.round(c.x), y: Math.round(c.y) };
    }
  }
  return { x: Math.round(o.x + o.w + GAP), y: Math.round(o.y + GAP) };
}

/**
 * Top-left corner for a new card of `size` centred near `point` (e.g. the
 * viewport centre) that does not overlap existing nodes: the point itself,
 * then rings around it.
 */
export function findFreeSpotAround(
  point: { x: number; y: number },
  nodes: Iterable<CanvasNode>,
  size: { w: number; h?: number } = { w: 200 },
  measure?: (id: string) => { width?: number; height?: number } | undefined,
): { x: number; y: number } {
  const others = [...nodes].map((n) => rectOf(n, measure));
  const h = size.h ?? DEFAULT_H;
  const start = { x: point.x - size.w / 2, y: point.y - h / 2 };
  const free = (c: { x: number; y: number }) => !others.some((o) => overlaps({ ...c, w: size.w, h }, o));
  if (free(start)) return { x: Math.round(start.x), y: Math.round(start.y) };
  const stepX = size.w + GAP;
  const stepY = h + GAP;
  for (let ring = 1; ring <= 5; ring++) {
    // Nearest spots of the ring first: a far corner of the ring can lie outside the view.
    const ringSpots: { x: number; y: number; d: number }[] = [];
    for (let dy = -ring; dy <= ring; dy++) {
      for (let dx = -ring; dx <= ring; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        ringSpots.push({ x: start.x + dx * stepX, y: start.y + dy * stepY, d: (dx * stepX) ** 2 + (dy * stepY) ** 2 });
      }
    }
    ringSpots.sort((a, b) => a.d - b.d);
    for (const c of ringSpots) if (free(c)) return { x: Math.round(c.x), y: Math.round(c.y) };
  }
  return { x: Math.round(start.x + 30), y: Math.round(start.y + 30) };
}
