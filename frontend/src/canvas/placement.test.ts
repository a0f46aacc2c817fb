import { describe, expect, it } from 'vitest';
import { normalizeNode } from '../sync/apply';
import { findFreeSpot, findFreeSpotAround } from './placement';

const n = (id: string, x: number, y: number) => normalizeNode({ id, x, y });

describe('findFreeSpot', () => {
  it('goes right of the origin when that is free', () => {
    expect(findFreeSpot(n('a', 0, 0), [n('a', 0, 0)], { w: 200 })).toEqual({ x: 240, y: 0 });
  });
  it('skips occupied spots', () => {
    const nodes = [n('a', 0, 0), n('b', 250, 0)];
    const spot = findFreeSpot(nodes[0], nodes, { w: 200 });
    expect(spot).toEqual({ x: 0, y: 194 });
  });
});

describe('findFreeSpotAround', () => {
  it('takes the nearest free spot of a ring, not its first corner', () => {
    // The point and its whole first ring are taken (200×90 cards, 240×130 apart).
    const nodes = [];
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) nodes.push(n(`c${dx}${dy}`, -100 + dx * 240, -45 + dy * 130));
    const spot = findFreeSpotAround({ x: 0, y: 0 }, nodes, { w: 200, h: 90 }, () => ({ width: 200, height: 90 }));
    // Straight above or below the point (260 px away), not the ring's corner (~550 px away).
    expect(spot.x).toBe(-100);
    expect(Math.abs(spot.y + 45)).toBe(260);
  });
});
