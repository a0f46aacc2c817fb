import { describe, expect, it } from 'vitest';
import type { CanvasEdge, CanvasNode } from '../api/types';
import { applyChanges, applyOp, docFromLists, touchedIds, type ChangeSideEffects } from './apply';

const ctx = { user: { id: 1, username: 'alice' }, clientOpId: 'op-1' };

function base() {
  return docFromLists(
    [
      { id: 'a', content: 'A', x: 0, y: 0 } as CanvasNode,
      { id: 'b', content: 'B', x: 100, y: 0 } as CanvasNode,
    ],
    [{ id: 'e', source: 'a', target: 'b', relation: 'depends_on' } as CanvasEdge],
  );
}

describe('applyOp', () => {
  it('fills defaults for created nodes', () => {
    const d = applyOp(base(), { type: 'node.create', node: { id: 'n', content: '新的', x: 1, y: 2 } }, ctx);
    expect(d.nodes.get('n')).toMatchObject({ kind: 'note', weight: 1, tags: [], pinned: false, sensitivity: 'public', created_by: ctx.user });
  });

  it('keeps untouched entities identical (cheap re-renders)', () => {
    const b = base();
    const d = applyOp(b, { type: 'node.move', id: 'a', x: 5, y: 5 }, ctx);
    expect(d.nodes.get('b')).toBe(b.nodes.get('b'));
    expect(d.nodes.get('a')).not.toBe(b.nodes.get('a'));
    expect(d.edges).toBe(b.edges);
    expect(b.nodes.get('a')?.x).toBe(0);
  });

  it('returns the same doc for ops on missing entities', () => {
    const b = base();
    expect(applyOp(b, { type: 'node.update', id: 'zzz', fields: { content: 'x' } }, ctx)).toBe(b);
    expect(applyOp(b, { type: 'edge.create', edge: { id: 'e2', source: 'a', target: 'zzz', relation: 'causes' } }, ctx)).toBe(b);
  });

  it('deletes a node with its edges', () => {
    const d = applyOp(base(), { type: 'node.delete', id: 'a' }, ctx);
    expect(d.nodes.has('a')).toBe(false);
    expect(d.edges.size).toBe(0);
  });

  it('supersedes: new node, superseded_by and a supersedes edge new → old', () => {
    const d = applyOp(base(), { type: 'node.supersede', id: 'a', node: { id: 'a2', content: 'A v2', x: 0, y: 50 } }, ctx);
    expect(d.nodes.get('a')?.superseded_by).toBe('a2');
    expect(d.nodes.get('a2')?.content).toBe('A v2');
    const e = [...d.edges.values()].find((x) => x.relation === 'supersedes');
    expect(e).toMatchObject({ source: 'a2', target: 'a' });
  });

  it('archives, updates edges and applies batches in order', () => {
    const d = applyOp(
      base(),
      {
        type: 'batch',
        ops: [
          { type: 'node.archive', id: 'b' },
          { type: 'edge.update', id: 'e', fields: { relation: 'causes', label: '因为' } },
          { type: 'node.create', node: { id: 'c', content: 'C', x: 0, y: 0 } },
          { type: 'edge.create', edge: { id: 'e2', source: 'c', target: 'a', relation: 'relates_to' } },
        ],
      },
      ctx,
    );
    expect(d.nodes.get('b')?.archived).toBe(true);
    expect(d.edges.get('e')).toMatchObject({ relation: 'causes', label: '因为' });
    expect(d.edges.get('e2')?.source).toBe('c');
  });

  it('lists touched ids', () => {
    expect([...touchedIds({ type: 'batch', ops: [{ type: 'node.move', id: 'a', x: 0, y: 0 }, { type: 'edge.delete', id: 'e' }] })]).toEqual(['a', 'e']);
  });
});

describe('applyChanges', () => {
  it('merges updates, creates and deletes', () => {
    const d = applyChanges(base(), [
      { entity: 'node', action: 'updated', id: 'a', fields: ['content'], data: { id: 'a', content: 'A!', x: 0, y: 0 } },
      { entity: 'node', action: 'created', id: 'c', fields: [], data: { id: 'c', content: 'C', x: 1, y: 1 } },
      { entity: 'edge', action: 'deleted', id: 'e', fields: [], data: null },
    ]);
    expect(d.nodes.get('a')?.content).toBe('A!');
    expect(d.nodes.get('c')?.kind).toBe('note');
    expect(d.edges.size).toBe(0);
  });

  it('reports canvas and member side effects', () => {
    const fx: ChangeSideEffects = {};
    applyChanges(
      base(),
      [
        { entity: 'canvas', action: 'updated', id: 1, fields: ['name'], data: { name: 'Renamed' } },
        { entity: 'member', action: 'deleted', id: 2, fields: [], data: { user: { id: 2, username: 'bob' }, role: 'editor' } },
      ],
      fx,
    );
    expect(fx.canvas).toEqual({ name: 'Renamed' });
    expect(fx.members).toEqual([{ user: { id: 2, username: 'bob' }, role: null }]);
  });
});
