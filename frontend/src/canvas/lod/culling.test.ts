import { describe, expect, it } from 'vitest';
import { boundsOf, cullNodes, cullWindow, edgesBetween, ESTIMATED_NODE_H, neighboursOf, sameRect, type Placed, type Rect } from './culling';

const placed = (id: string, x: number, y: number, extra: Partial<Placed> & { selected?: boolean } = {}) =>
  ({ id, position: { x, y }, data: { node: { weight: 1 } }, ...extra }) as Placed & { selected?: boolean };

/** a 100 x 100 grid, 300 apart: 10,000 nodes */
const grid = () => {
  const out: (Placed & { selected?: boolean })[] = [];
  for (let r = 0; r < 100; r++) for (let c = 0; c < 100; c++) out.push(placed(`n${r}-${c}`, c * 300, r * 200));
  return out;
};

const PANE = { width: 1440, height: 900 };
const visibleRect = (t: [number, number, number]): Rect => ({ x: -t[0] / t[2], y: -t[1] / t[2], width: PANE.width / t[2], height: PANE.height / t[2] });
const contains = (outer: Rect, inner: Rect) =>
  outer.x <= inner.x && outer.y <= inner.y && outer.x + outer.width >= inner.x + inner.width && outer.y + outer.height >= inner.y + inner.height;

describe('cullWindow', () => {
  it('always covers the visible area, with a margin', () => {
    for (const t of [[0, 0, 1], [-12345, 678, 0.8], [5000, -3000, 0.1], [-1, -1, 2.5], [333, 444, 0.45]] as [number, number, number][]) {
      const w = cullWindow(t, PANE);
      const v = visibleRect(t);
      expect(contains(w, v)).toBe(true);
      expect(w.x).toBeLessThan(v.x);
      expect(w.y + w.height).toBeGreaterThan(v.y + v.height);
    }
  });

  it('stays the same while the viewport pans or zooms a little (no re-render per frame)', () => {
    const a = cullWindow([-4100, -2100, 0.8], PANE);
    expect(sameRect(a, cullWindow([-4105, -2098, 0.8], PANE))).toBe(true);
    // a 1,000 px drag in 5 px steps crosses only a few cells
    const windows: Rect[] = [];
    for (let i = 0; i <= 200; i++) {
      const w = cullWindow([-4100 - 5 * i, -2100, 0.8], PANE);
      if (!windows.length || !sameRect(windows[windows.length - 1], w)) windows.push(w);
    }
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.length).toBeLessThanOrEqual(6);
    // a pan of several screens moves it
    expect(sameRect(a, cullWindow([-4100 - 3 * 1440, -2100, 0.8], PANE))).toBe(false);
  });

  it('is bounded: a few times the visible area, not the canvas', () => {
    const t: [number, number, number] = [-20000, -9000, 0.8];
    const w = cullWindow(t, PANE);
    const v = visibleRect(t);
    expect(w.width * w.height).toBeLessThan(8 * v.width * v.height);
  });
});

describe('cullNodes', () => {
  it('keeps the nodes in the window (a node partly inside counts) and drops the rest', () => {
    const nodes = grid();
    const window: Rect = { x: 1000, y: 1000, width: 1000, height: 500 };
    const shown = cullNodes(nodes, window, () => false);
    // columns whose 200-wide card reaches into x 1000..2000: 900, 1200 ... 1800; rows for y 1000..1500 with 110 high cards: 1000 ... 1400
    expect(new Set(shown.map((n) => n.id))).toEqual(
      new Set([900, 1200, 1500, 1800].flatMap((x) => [1000, 1200, 1400].map((y) => `n${y / 200}-${x / 300}`))),
    );
    expect(shown.length).toBeLessThan(nodes.length / 100);
  });

  it('keeps the nodes the caller must keep (selected, dragged) wherever they are', () => {
    const nodes = grid();
    nodes[9999].selected = true;
    const shown = cullNodes(nodes, { x: 0, y: 0, width: 500, height: 300 }, (n) => !!(n as { selected?: boolean }).selected);
    expect(shown.map((n) => n.id)).toContain('n99-99');
  });

  it('mounts the far end of an edge that leaves the window, so the edge is drawn', () => {
    const nodes = [placed('in', 0, 0), placed('far', 90000, 90000), placed('other', 50000, 0)];
    const edges = [{ source: 'in', target: 'far' }];
    const shown = cullNodes(nodes, { x: -100, y: -100, width: 1000, height: 1000 }, () => false, neighboursOf(edges));
    expect(shown.map((n) => n.id)).toEqual(['in', 'far']);
    expect(edgesBetween([...edges, { source: 'far', target: 'other' }], new Set(shown.map((n) => n.id)))).toEqual(edges);
  });

  it('uses measured sizes when known and estimates otherwise', () => {
    const tall = placed('tall', 0, -1000, { measured: { width: 200, height: 1100 } });
    const short = placed('short', 0, -1000);
    const window: Rect = { x: 0, y: 0, width: 100, height: 100 };
    expect(cullNodes([tall, short], window, () => false).map((n) => n.id)).toEqual(['tall']);
    expect(boundsOf([short])).toEqual({ x: 0, y: -1000, width: 200, height: ESTIMATED_NODE_H });
  });

  it('hands back the same array when nothing is culled', () => {
    const nodes = [placed('a', 0, 0), placed('b', 10, 10)];
    expect(cullNodes(nodes, { x: -50, y: -50, width: 500, height: 500 }, () => false)).toBe(nodes);
  });
});

describe('boundsOf', () => {
  it('spans every node, for fit-to-all on a culled canvas', () => {
    expect(boundsOf(grid())).toEqual({ x: 0, y: 0, width: 99 * 300 + 200, height: 99 * 200 + ESTIMATED_NODE_H });
    expect(boundsOf([])).toBeNull();
  });
});
