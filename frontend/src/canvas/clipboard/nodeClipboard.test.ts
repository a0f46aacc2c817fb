import { describe, expect, it } from 'vitest';
import type { CanvasEdge, CanvasNode, Op } from '../../api/types';
import { docFromLists, normalizeEdge, normalizeNode } from '../../sync/apply';
import { copySelection, parsePayload, payloadText, planPaste } from './nodeClipboard';

const node = (id: string, x: number, y: number, extra: Partial<CanvasNode> = {}) => normalizeNode({ id, x, y, content: `text ${id}`, ...extra });
const edge = (id: string, source: string, target: string): CanvasEdge => normalizeEdge({ id, source, target, relation: 'depends_on' });

describe('copying nodes', () => {
  const doc = docFromLists(
    [node('a', 100, 50, { content: '机房搬迁定在周六' }), node('b', 400, 80), node('c', 900, 900)],
    [edge('ab', 'a', 'b'), edge('bc', 'b', 'c')],
  );

  it('keeps the edges between copied nodes only, positions relative to the group', () => {
    const p = copySelection(doc, ['a', 'b'])!;
    expect(p.nodes.map((n) => [n.ref, n.dx, n.dy])).toEqual([
      ['a', 0, 0],
      ['b', 300, 30],
    ]);
    expect(p.edges).toEqual([{ source: 'a', target: 'b', relation: 'depends_on', label: '' }]);
    expect(payloadText(p)).toBe('机房搬迁定在周六\n\ntext b');
  });

  it('reads back only its own well-formed payloads', () => {
    const p = copySelection(doc, ['a'])!;
    expect(parsePayload(JSON.stringify(p))).toEqual(p);
    expect(parsePayload('plain words')).toBeNull();
    expect(parsePayload(JSON.stringify({ format: 'other', nodes: [], edges: [] }))).toBeNull();
    expect(parsePayload(JSON.stringify({ ...p, nodes: [{ ...p.nodes[0], dx: 'NaN' }] }))).toBeNull();
  });

  it('pastes with new ids, remapped edges, clear of every existing node', () => {
    const p = copySelection(doc, ['a', 'b'])!;
    let n = 0;
    const plan = planPaste(p, doc, { x: 250, y: 80 }, 'editor', () => `new-${++n}`);
    const creates = plan.ops.filter((o): o is Extract<Op, { type: 'node.create' }> => o.type === 'node.create');
    const links = plan.ops.filter((o): o is Extract<Op, { type: 'edge.create' }> => o.type === 'edge.create');
    expect(creates.map((o) => o.node.id)).toEqual(['new-1', 'new-2']);
    expect(links).toHaveLength(1);
    expect([links[0].edge.source, links[0].edge.target]).toEqual(['new-1', 'new-2']);
    // The group keeps its shape.
    expect(creates[1].node.x - creates[0].node.x).toBe(300);
    expect(creates[1].node.y - creates[0].node.y).toBe(30);
    // Nowhere on top of a, b (the paste point is right on them).
    for (const c of creates) {
      for (const old of ['a', 'b']) {
        const o = doc.nodes.get(old)!;
        const overlapX = Math.abs(c.node.x - o.x) < 200;
        const overlapY = Math.abs(c.node.y - o.y) < 110;
        expect(overlapX && overlapY).toBe(false);
      }
    }
  });

  it('lowers a sensitivity the pasting role may not set', () => {
    const secretDoc = docFromLists([node('s', 0, 0, { sensitivity: 'secret' }), node('i', 300, 0, { sensitivity: 'internal' })], []);
    const p = copySelection(secretDoc, ['s', 'i'])!;
    const plan = planPaste(p, docFromLists([], []), { x: 0, y: 0 }, 'editor', () => Math.random().toString(36));
    const levels = plan.ops.map((o) => (o.type === 'node.create' ? o.node.sensitivity : null));
    expect(levels).toEqual(['internal', 'internal']);
    expect(plan.lowered).toBe(1);
  });
});
