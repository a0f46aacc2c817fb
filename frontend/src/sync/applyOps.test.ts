import { afterEach, describe, expect, it } from 'vitest';
import type { CanvasNode, Op } from '../api/types';
import { applyOp, applyOps, docFromLists } from './apply';

const ctx = (clientOpId: string) => ({ user: { id: 1, username: 'alice' }, clientOpId });

function doc(n: number) {
  return docFromLists(
    Array.from({ length: n }, (_, i) => ({ id: `n${i}`, content: `卡片 ${i}`, x: i, y: 0 }) as CanvasNode),
    [],
  );
}

const OriginalMap = globalThis.Map;
afterEach(() => {
  globalThis.Map = OriginalMap;
});

/** count `new Map(...)` calls while fn runs */
function countMaps<T>(fn: () => T): [T, number] {
  let made = 0;
  globalThis.Map = class CountingMap<K, V> extends OriginalMap<K, V> {
    constructor(entries?: Iterable<readonly [K, V]> | null) {
      super(entries);
      made++;
    }
  } as MapConstructor;
  try {
    return [fn(), made];
  } finally {
    globalThis.Map = OriginalMap;
  }
}

describe('applyOps (the rebase of pending ops)', () => {
  const ops: Op[] = [
    { type: 'node.move', id: 'n1', x: 10, y: 10 },
    { type: 'node.update', id: 'n2', fields: { content: '改过的' } },
    { type: 'node.create', node: { id: 'new', content: 'fresh note', x: 5, y: 5 } },
    { type: 'edge.create', edge: { id: 'e1', source: 'n1', target: 'new', relation: 'depends_on' } },
    { type: 'node.move', id: 'n1', x: 20, y: 20 },
  ];

  it('gives the same document as applying the ops one by one', () => {
    const base = doc(50);
    const one = ops.reduce((d, op, i) => applyOp(d, op, ctx(`c${i}`)), base);
    const all = applyOps(base, ops.map((op, i) => ({ op, ctx: ctx(`c${i}`) })));
    expect([...all.nodes.values()]).toEqual([...one.nodes.values()]);
    expect([...all.edges.values()]).toEqual([...one.edges.values()]);
    expect(all.nodes.get('n1')).toMatchObject({ x: 20, y: 20 });
    // the confirmed document is not touched, untouched nodes keep their identity
    expect(base.nodes.get('n1')?.x).toBe(1);
    expect(all.nodes.get('n3')).toBe(base.nodes.get('n3'));
  });

  it('clones each map once for the whole queue, not once per op', () => {
    const base = doc(2000);
    const queue = Array.from({ length: 40 }, (_, i) => ({ op: { type: 'node.move', id: `n${i}`, x: i, y: i } as Op, ctx: ctx(`m${i}`) }));
    const [result, made] = countMaps(() => applyOps(base, queue));
    expect(made).toBe(1);
    expect(result.nodes.get('n39')).toMatchObject({ x: 39, y: 39 });
  });

  it('returns the confirmed document itself when no op changes anything', () => {
    const base = doc(3);
    expect(applyOps(base, [{ op: { type: 'node.delete', id: 'missing' }, ctx: ctx('x') }])).toBe(base);
    expect(applyOps(base, [])).toBe(base);
  });
});
