import { describe, expect, it } from 'vitest';
import type { CanvasEdge, CanvasNode } from '../api/types';
import { applyChanges, docFromLists } from '../sync/apply';
import { buildEdges } from './useFlowEdges';
import type { RelEdge } from './FloatingEdge';

const doc = docFromLists(
  [
    { id: 'a', content: '上游 upstream', x: 0, y: 0 } as CanvasNode,
    { id: 'b', content: '下游 downstream', x: 300, y: 0 } as CanvasNode,
    { id: 'c', content: 'third', x: 600, y: 0 } as CanvasNode,
  ],
  [
    { id: 'e1', source: 'a', target: 'b', relation: 'depends_on' } as CanvasEdge,
    { id: 'e2', source: 'b', target: 'c', relation: 'causes' } as CanvasEdge,
  ],
);
const onLabel = () => undefined;
const onGhost = () => undefined;
const NONE = new Set<string>();
const byId = (edges: RelEdge[]) => new Map(edges.map((e) => [e.id, e]));

describe('buildEdges', () => {
  it('keeps the object (and data) of every edge a change did not touch', () => {
    const first = buildEdges(new Map(), doc, NONE, NONE, [], onLabel, onGhost);
    // a node moves and e2's label changes: e1 is the same object, e2 is new
    const next = applyChanges(doc, [
      { entity: 'node', action: 'updated', id: 'a', data: { id: 'a', x: 40 } },
      { entity: 'edge', action: 'updated', id: 'e2', data: { id: 'e2', source: 'b', target: 'c', label: '新标签' } },
    ]);
    const second = buildEdges(byId(first), next, NONE, NONE, [], onLabel, onGhost);
    expect(second[0]).toBe(first[0]);
    expect(second[0].data).toBe(first[0].data);
    expect(second[1]).not.toBe(first[1]);
    expect(second[1].data?.edge.label).toBe('新标签');
  });

  it('makes a new object when the edge is selected or becomes pending', () => {
    const first = buildEdges(new Map(), doc, NONE, NONE, [], onLabel, onGhost);
    const selected = buildEdges(byId(first), doc, NONE, new Set(['e1']), [], onLabel, onGhost);
    expect(selected[0]).not.toBe(first[0]);
    expect(selected[0].selected).toBe(true);
    expect(selected[1]).toBe(first[1]);
    const pending = buildEdges(byId(selected), doc, new Set(['e2']), new Set(['e1']), [], onLabel, onGhost);
    expect(pending[0]).toBe(selected[0]);
    expect(pending[1].data?.pending).toBe(true);
  });
});
