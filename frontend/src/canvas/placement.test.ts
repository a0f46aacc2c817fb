import { describe, expect, it } from 'vitest';
import { normalizeNode } from '../sync/apply';
import { findFreeSpot } from './placement';

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
