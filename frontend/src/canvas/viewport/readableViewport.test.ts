import { beforeEach, describe, expect, it } from 'vitest';
import type { CanvasNode } from '../../api/types';
import { anchorNodes, loadViewport, MIN_READABLE_ZOOM, readableViewport, saveViewport } from './readableViewport';

const node = (id: string, x: number, y: number, extra: Partial<CanvasNode> = {}) =>
  ({ id, content: id, kind: 'note', x, y, weight: 1, tags: [], pinned: false, archived: false, superseded_by: null, sensitivity: 'public', ...extra }) as CanvasNode;

describe('readableViewport', () => {
  beforeEach(() => window.localStorage.clear());

  it('opens around pinned anchors, never below the readable zoom', () => {
    const nodes = [node('a', 0, 0), node('p', 3000, 2000, { pinned: true }), node('b', 6000, 4000)];
    const anchors = anchorNodes(nodes);
    expect(anchors.map((n) => n.id)).toEqual(['p']);
    const v = readableViewport(anchors, { width: 1000, height: 800 });
    expect(v.zoom).toBeGreaterThanOrEqual(MIN_READABLE_ZOOM);
    // the anchor's centre is the pane's centre
    expect(v.x + (3000 + 100) * v.zoom).toBeCloseTo(500);
    expect(v.y + (2000 + 55) * v.zoom).toBeCloseTo(400);
  });

  it('clamps a wide spread of anchors to the readable zoom', () => {
    const spread = [node('a', 0, 0, { pinned: true }), node('b', 9000, 0, { pinned: true })];
    expect(readableViewport(spread, { width: 1000, height: 800 }).zoom).toBe(MIN_READABLE_ZOOM);
  });

  it('remembers the viewport per user and canvas', () => {
    saveViewport(1, 'c1', { x: 10.123, y: -5, zoom: 0.9 });
    expect(loadViewport(1, 'c1')).toEqual({ x: 10.12, y: -5, zoom: 0.9 });
    expect(loadViewport(2, 'c1')).toBeNull();
    expect(loadViewport(1, 'c2')).toBeNull();
    window.localStorage.setItem('canvasweb.viewport.1.c3', '{"x":"bad"}');
    expect(loadViewport(1, 'c3')).toBeNull();
  });
});
