// What the level-of-detail layer (LodLayer.tsx) draws, built once per node or
// edge change and drawn on every pan frame: boxes grouped by fill and alpha,
// edge lines grouped by colour, in flow coordinates. Also the hit test that
// turns a click on the layer into the node under the pointer.
import { kindMeta, relationColor } from '../kinds';
import { nodeRect, type Placed, type Rect } from './culling';

/** the part of a React Flow node the scene needs */
export interface SceneNode extends Placed {
  type?: string;
  data: {
    node?: { weight?: number; kind?: string; pinned?: boolean; archived?: boolean; superseded_by?: string | null };
    decor?: { dimmed?: boolean };
  };
}

export interface SceneEdge {
  source: string;
  target: string;
  data?: { edge?: { relation?: string } };
}

/** boxes of one look: flat [x, y, w, h, ...] in flow coordinates */
export interface BoxGroup {
  fill: string;
  alpha: number;
  rects: Float64Array;
}

export interface LineGroup {
  stroke: string;
  /** flat [x1, y1, x2, y2, ...] between box centres */
  lines: Float64Array;
}

export interface Scene {
  boxes: BoxGroup[];
  /** pinned boxes get an outline: flat [x, y, w, h, ...] */
  outlines: Float64Array;
  lines: LineGroup[];
  /** boxes in draw order (for the hit test) */
  hits: { id: string; rect: Rect }[];
  count: number;
}

const alphaOf = (n: SceneNode) => {
  const node = n.data.node;
  if (n.data.decor?.dimmed) return 0.25;
  if (node?.archived || node?.superseded_by) return 0.35;
  return 0.85;
};

/**
 * The scene for the nodes React Flow does not mount (`mounted`: those it does,
 * drawn by it on top) and the edges it does not draw (both ends mounted).
 */
export function buildScene(nodes: readonly SceneNode[], edges: readonly SceneEdge[], mounted: ReadonlySet<string>): Scene {
  const rects = new Map<string, number[]>();
  const outlines: number[] = [];
  const centres = new Map<string, { x: number; y: number }>();
  const hits: Scene['hits'] = [];
  for (const n of nodes) {
    if (n.type === 'ghost') continue;
    const r = nodeRect(n);
    centres.set(n.id, { x: r.x + r.width / 2, y: r.y + r.height / 2 });
    if (mounted.has(n.id)) continue;
    const key = `${kindMeta(n.data.node?.kind ?? 'note').color}|${alphaOf(n)}`;
    let list = rects.get(key);
    if (!list) rects.set(key, (list = []));
    list.push(r.x, r.y, r.width, r.height);
    if (n.data.node?.pinned) outlines.push(r.x, r.y, r.width, r.height);
    hits.push({ id: n.id, rect: r });
  }
  const lines = new Map<string, number[]>();
  for (const e of edges) {
    if (mounted.has(e.source) && mounted.has(e.target)) continue;
    const a = centres.get(e.source);
    const b = centres.get(e.target);
    if (!a || !b) continue;
    const stroke = relationColor(e.data?.edge?.relation ?? 'relates_to');
    let list = lines.get(stroke);
    if (!list) lines.set(stroke, (list = []));
    list.push(a.x, a.y, b.x, b.y);
  }
  return {
    boxes: [...rects].map(([key, list]) => {
      const [fill, alpha] = key.split('|');
      return { fill, alpha: Number(alpha), rects: Float64Array.from(list) };
    }),
    outlines: Float64Array.from(outlines),
    lines: [...lines].map(([stroke, list]) => ({ stroke, lines: Float64Array.from(list) })),
    hits,
    count: hits.length,
  };
}

/** The id of the topmost drawn box containing the flow point, or null. */
export function hitTest(scene: Scene, p: { x: number; y: number }): string | null {
  for (let i = scene.hits.length - 1; i >= 0; i--) {
    const { id, rect: r } = scene.hits[i];
    if (p.x >= r.x && p.x <= r.x + r.width && p.y >= r.y && p.y <= r.y + r.height) return id;
  }
  return null;
}

/** Ids of the drawn boxes lying wholly inside a flow rectangle (a box selection). */
export function boxesInside(scene: Scene, area: Rect): string[] {
  const out: string[] = [];
  for (const { id, rect: r } of scene.hits) {
    if (r.x >= area.x && r.y >= area.y && r.x + r.width <= area.x + area.width && r.y + r.height <= area.y + area.height) out.push(id);
  }
  return out;
}

/** The part of the flow plane a transform [x, y, zoom] shows in a pane. */
export function visibleArea(transform: readonly [number, number, number], pane: { width: number; height: number }): Rect {
  const [tx, ty, zoom] = transform;
  const z = zoom > 0 ? zoom : 1;
  return { x: -tx / z, y: -ty / z, width: pane.width / z, height: pane.height / z };
}

/** Draw the scene for a transform; boxes outside `view` are skipped. */
export function drawScene(ctx: CanvasRenderingContext2D, scene: Scene, transform: readonly [number, number, number], view: Rect, dpr: number) {
  const [tx, ty, zoom] = transform;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  ctx.setTransform(dpr * zoom, 0, 0, dpr * zoom, dpr * tx, dpr * ty);
  const x0 = view.x;
  const y0 = view.y;
  const x1 = view.x + view.width;
  const y1 = view.y + view.height;
  // lines first, under the boxes (they run centre to centre)
  ctx.globalAlpha = 0.55;
  ctx.lineWidth = 1.5 / zoom;
  for (const g of scene.lines) {
    ctx.strokeStyle = g.stroke;
    ctx.beginPath();
    const l = g.lines;
    for (let i = 0; i < l.length; i += 4) {
      if (Math.max(l[i], l[i + 2]) < x0 || Math.min(l[i], l[i + 2]) > x1 || Math.max(l[i + 1], l[i + 3]) < y0 || Math.min(l[i + 1], l[i + 3]) > y1) continue;
      ctx.moveTo(l[i], l[i + 1]);
      ctx.lineTo(l[i + 2], l[i + 3]);
    }
    ctx.stroke();
  }
  for (const g of scene.boxes) {
    ctx.globalAlpha = g.alpha;
    ctx.fillStyle = g.fill;
    ctx.beginPath();
    const r = g.rects;
    for (let i = 0; i < r.length; i += 4) {
      if (r[i] > x1 || r[i + 1] > y1 || r[i] + r[i + 2] < x0 || r[i + 1] + r[i + 3] < y0) continue;
      ctx.rect(r[i], r[i + 1], r[i + 2], r[i + 3]);
    }
    ctx.fill();
  }
  if (scene.outlines.length) {
    ctx.globalAlpha = 1;
    ctx.strokeStyle = '#0f172a';
    ctx.lineWidth = 6;
    ctx.beginPath();
    const r = scene.outlines;
    for (let i = 0; i < r.length; i += 4) ctx.rect(r[i] - 3, r[i + 1] - 3, r[i + 2] + 6, r[i + 3] + 6);
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
}
