import { describe, expect, it } from 'vitest';
import { boxesInside, buildScene, hitTest, visibleArea, type SceneEdge, type SceneNode } from './lodScene';

const n = (id: string, x: number, y: number, extra: Partial<SceneNode['data']['node']> = {}, type = 'card'): SceneNode => ({
  id,
  type,
  position: { x, y },
  measured: { width: 200, height: 100 },
  data: { node: { kind: 'fact', weight: 1, ...extra } },
});
const e = (source: string, target: string, relation = 'depends_on'): SceneEdge => ({ source, target, data: { edge: { relation } } });

describe('buildScene', () => {
  const nodes = [n('a', 0, 0), n('b', 300, 0, { kind: 'decision' }), n('c', 600, 0, { archived: true }), n('d', 0, 300, { pinned: true }), n('g', 900, 0, {}, 'ghost')];
  const edges = [e('a', 'b'), e('b', 'c', 'causes'), e('a', 'd'), e('d', 'g')];

  it('groups boxes by colour and alpha, skips mounted nodes and ghosts', () => {
    const scene = buildScene(nodes, edges, new Set(['b']));
    expect(scene.count).toBe(3);
    const boxes = scene.boxes.map((g) => [g.fill, g.alpha, g.rects.length / 4]);
    expect(boxes).toContainEqual(['#1d4ed8', 0.85, 2]); // a and d, facts
    expect(boxes).toContainEqual(['#1d4ed8', 0.35, 1]); // c, archived
    expect(scene.outlines.length).toBe(4); // d is pinned
  });

  it('draws an edge unless React Flow draws it (both ends mounted), centre to centre', () => {
    const scene = buildScene(nodes, edges, new Set(['a', 'b']));
    const lines = scene.lines.flatMap((g) => [...g.lines]);
    // a-b is React Flow's; b-c and a-d are drawn; d-g has no box for the ghost
    expect(lines.length).toBe(8);
    expect(scene.lines.find((g) => g.stroke === '#ea580c')?.lines).toEqual(Float64Array.from([400, 50, 700, 50]));
  });

  it('finds the node under a point and the boxes inside a rectangle', () => {
    const scene = buildScene(nodes, edges, new Set());
    expect(hitTest(scene, { x: 350, y: 40 })).toBe('b');
    expect(hitTest(scene, { x: 250, y: 40 })).toBeNull();
    expect(boxesInside(scene, { x: -10, y: -10, width: 520, height: 120 })).toEqual(['a', 'b']);
  });
});

describe('visibleArea', () => {
  it('is the pane in flow coordinates', () => {
    expect(visibleArea([-100, 50, 0.5], { width: 800, height: 600 })).toEqual({ x: 200, y: -100, width: 1600, height: 1200 });
  });
});
