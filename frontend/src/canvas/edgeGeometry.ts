// Geometry of a floating edge: the line from card to card leaves each card
// where the line between their centres crosses its border, curves like React
// Flow's bezier edge, and carries its label on the part of the curve that is
// visible between the cards. The label is tried at several points along that
// part, full size, then compact (relation only), then as a dot; the first that
// touches no card wins, and none is drawn when even the dot does not fit.
import { Position } from '@xyflow/react';

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Point {
  x: number;
  y: number;
}

/** Where the line from b's centre to a's centre crosses a's border. */
export function borderPoint(a: Box, b: Box): Point {
  const w = a.w / 2;
  const h = a.h / 2;
  const x2 = a.x + w;
  const y2 = a.y + h;
  const x1 = b.x + b.w / 2;
  const y1 = b.y + b.h / 2;
  const xx1 = (x1 - x2) / (2 * w) - (y1 - y2) / (2 * h);
  const yy1 = (x1 - x2) / (2 * w) + (y1 - y2) / (2 * h);
  const denom = Math.abs(xx1) + Math.abs(yy1) || 1;
  const a2 = 1 / denom;
  const xx3 = a2 * xx1;
  const yy3 = a2 * yy1;
  return { x: w * (xx3 + yy3) + x2, y: h * (-xx3 + yy3) + y2 };
}

export function sideOf(b: Box, p: Point): Position {
  const px = Math.round(p.x);
  const py = Math.round(p.y);
  if (px <= Math.round(b.x) + 1) return Position.Left;
  if (px >= Math.round(b.x + b.w) - 1) return Position.Right;
  if (py <= Math.round(b.y) + 1) return Position.Top;
  return Position.Bottom;
}

// React Flow's bezier control points (getBezierPath, curvature 0.25)
const controlOffset = (distance: number) => (distance >= 0 ? 0.5 * distance : 0.25 * 25 * Math.sqrt(-distance));
function control(pos: Position, from: Point, to: Point): Point {
  switch (pos) {
    case Position.Left:
      return { x: from.x - controlOffset(from.x - to.x), y: from.y };
    case Position.Right:
      return { x: from.x + controlOffset(to.x - from.x), y: from.y };
    case Position.Top:
      return { x: from.x, y: from.y - controlOffset(from.y - to.y) };
    default:
      return { x: from.x, y: from.y + controlOffset(to.y - from.y) };
  }
}

export interface EdgeCurve {
  path: string;
  /** the point at t in [0, 1] along the curve, from the source card's border to the target's */
  at(t: number): Point;
  /** the cards overlap: no part of the edge is visible between them */
  hidden: boolean;
}

export const inside = (b: Box, p: Point) => p.x > b.x && p.x < b.x + b.w && p.y > b.y && p.y < b.y + b.h;

export function edgeCurve(source: Box, target: Box): EdgeCurve {
  const s = borderPoint(source, target);
  const t = borderPoint(target, source);
  const c1 = control(sideOf(source, s), s, t);
  const c2 = control(sideOf(target, t), t, s);
  const at = (u: number): Point => {
    const v = 1 - u;
    const a = v * v * v;
    const b = 3 * v * v * u;
    const c = 3 * v * u * u;
    const d = u * u * u;
    return { x: a * s.x + b * c1.x + c * c2.x + d * t.x, y: a * s.y + b * c1.y + c * c2.y + d * t.y };
  };
  return {
    path: `M${s.x},${s.y} C${c1.x},${c1.y} ${c2.x},${c2.y} ${t.x},${t.y}`,
    at,
    hidden: inside(source, t) || inside(target, s) || inside(target, at(0.5)) || inside(source, at(0.5)),
  };
}

export type LabelLevel = 'full' | 'compact' | 'dot';
export interface LabelSize {
  level: LabelLevel;
  w: number;
  h: number;
}
export interface LabelSpot {
  level: LabelLevel;
  x: number;
  y: number;
}

/** along the curve, middle first, then outwards in both directions */
const STOPS = [0.5, ...Array.from({ length: 11 }, (_, k) => [0.5 - 0.04 * (k + 1), 0.5 + 0.04 * (k + 1)]).flat()];
/** clearance kept between a label and a card (flow px) */
export const LABEL_GAP = 3;

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const grow = (b: Box, by: number): Box => ({ x: b.x - by, y: b.y - by, w: b.w + 2 * by, h: b.h + 2 * by });

/**
 * The first spot, size by size, where a label centred on the curve touches
 * none of `cards` (the two ends and any other card near the edge); null when
 * none does, or when the edge is hidden between overlapping cards.
 */
export function placeLabel(curve: EdgeCurve, sizes: readonly LabelSize[], cards: readonly Box[]): LabelSpot | null {
  if (curve.hidden) return null;
  const blocked = cards.map((c) => grow(c, LABEL_GAP));
  for (const size of sizes) {
    for (const t of STOPS) {
      const p = curve.at(t);
      const rect = { x: p.x - size.w / 2, y: p.y - size.h / 2, w: size.w, h: size.h };
      if (!blocked.some((c) => overlaps(rect, c))) return { level: size.level, x: p.x, y: p.y };
    }
  }
  return null;
}

/** the box around the curve's ends and control points (a superset of the curve and any label on it) */
export function curveBounds(source: Box, target: Box, margin: number): Box {
  const x0 = Math.min(source.x, target.x) - margin;
  const y0 = Math.min(source.y, target.y) - margin;
  const x1 = Math.max(source.x + source.w, target.x + target.w) + margin;
  const y1 = Math.max(source.y + source.h, target.y + target.h) + margin;
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

export { overlaps as boxesOverlap };
