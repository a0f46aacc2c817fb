import { describe, expect, it } from 'vitest';
import { docFromLists } from '../sync/apply';
import { decidedProposals, ghostNodeId, ghostsFor, INITIAL_PROPOSALS, markedNodes, pendingProposals, proposalsReducer, staleReason } from './proposals';
import { node, proposal } from '../test/engineHarness';

describe('proposal list state', () => {
  it('lists pending proposals newest first and applies live frames', () => {
    let s = proposalsReducer(INITIAL_PROPOSALS, { type: 'loaded', proposals: [proposal(1), proposal(2, { status: 'approved', decided_at: '2026-11-30T12:01:00Z' })] });
    expect(pendingProposals(s).map((p) => p.id)).toEqual([1]);
    s = proposalsReducer(s, { type: 'frame', action: 'created', proposal: proposal(3) });
    expect(pendingProposals(s).map((p) => p.id)).toEqual([3, 1]);
    s = proposalsReducer(s, { type: 'frame', action: 'approved', proposal: proposal(3, { status: 'approved', decided_by: { id: 2, username: 'bob' }, decided_at: '2026-11-30T12:05:00Z' }) });
    expect(pendingProposals(s).map((p) => p.id)).toEqual([1]);
    expect(decidedProposals(s).map((p) => p.id)).toEqual([3, 2]);
  });

  it('a decision is final: a late created frame does not reopen it', () => {
    let s = proposalsReducer(INITIAL_PROPOSALS, { type: 'decided', proposal: proposal(4, { status: 'rejected' }) });
    s = proposalsReducer(s, { type: 'frame', action: 'created', proposal: proposal(4) });
    expect(s.byId[4].status).toBe('rejected');
  });

  it('frames arriving before the list loads are kept when newer', () => {
    let s = proposalsReducer(INITIAL_PROPOSALS, { type: 'frame', action: 'approved', proposal: proposal(5, { status: 'approved' }) });
    s = proposalsReducer(s, { type: 'frame', action: 'created', proposal: proposal(6) });
    s = proposalsReducer(s, { type: 'loaded', proposals: [proposal(5)] });
    expect(s.byId[5].status).toBe('approved');
    expect(pendingProposals(s).map((p) => p.id)).toEqual([6]);
    expect(s.loaded).toBe(true);
  });

  it('keeps the server stale flag when a pending frame arrives', () => {
    let s = proposalsReducer(INITIAL_PROPOSALS, { type: 'loaded', proposals: [proposal(7, { stale: true, stale_reason: 'a node it changes was edited since' })] });
    s = proposalsReducer(s, { type: 'frame', action: 'created', proposal: proposal(7) });
    expect(s.byId[7].stale).toBe(true);
  });

  it('flags proposals stale against the local document', () => {
    const doc = docFromLists([node('a', { version: 3 }), node('b', { superseded_by: 'c' }), node('c')], []);
    const upd = proposal(8, { tool: 'update_node', diff: { target: { id: 'a', content: 'x', kind: 'fact', version: 2 }, fields: [{ field: 'content', before: 'x', after: 'y' }] } });
    expect(staleReason(upd, doc)).toBe('a node it changes was edited since');
    const current = proposal(9, { tool: 'update_node', diff: { target: { id: 'a', content: 'x', kind: 'fact', version: 3 }, fields: [] } });
    expect(staleReason(current, doc)).toBeNull();
    const gone = proposal(10, { tool: 'archive_node', diff: { target: { id: 'zzz', content: 'x', kind: 'fact', version: 1 }, fields: [] } });
    expect(staleReason(gone, doc)).toBe('a node it changes was deleted');
    const link = proposal(11, { tool: 'link_nodes', diff: { edge: { source: 'a', target: 'b', relation: 'depends_on' }, fields: [] } });
    expect(staleReason(link, doc)).toBe('a node it links to was deleted, superseded or archived');
  });

  it('draws ghosts for new nodes, replacements, moves and links; marks edited nodes', () => {
    const doc = docFromLists([node('a', { x: 10, y: 20 }), node('b')], []);
    const pending = [
      proposal(1),
      proposal(2, { tool: 'supersede_node', diff: { target: { id: 'a', content: 'old', kind: 'fact', version: 1 }, node: { id: 'n2', content: 'new', kind: 'fact', x: 300, y: 20 }, fields: [] } }),
      proposal(3, { tool: 'move_node', diff: { target: { id: 'b', content: '', kind: 'fact', version: 1 }, fields: [{ field: 'x', before: 0, after: 500 }, { field: 'y', before: 0, after: 600 }] } }),
      proposal(4, { tool: 'link_nodes', diff: { edge: { source: 'a', target: 'b', relation: 'causes' }, fields: [] } }),
      proposal(5, { tool: 'update_node', diff: { target: { id: 'b', content: '', kind: 'fact', version: 1 }, fields: [] } }),
    ];
    const g = ghostsFor(pending, doc);
    expect(g.nodes.map((n) => [n.node.id, n.mode, n.node.x, n.node.y])).toEqual([
      [ghostNodeId(1), 'add', 100, 50],
      [ghostNodeId(2), 'supersede', 300, 20],
      [ghostNodeId(3), 'move', 500, 600],
    ]);
    expect(g.edges.map((e) => [e.edge.source, e.edge.target, e.edge.relation])).toEqual([
      [ghostNodeId(2), 'a', 'supersedes'],
      ['a', 'b', 'causes'],
    ]);
    expect(g.nodes[0].node.author_kind).toBe('agent');
    // once the real node (same id) is on the canvas, its ghost goes away
    const landed = docFromLists([node('a'), node('b'), node('new-1')], []);
    expect(ghostsFor([proposal(1)], landed).nodes).toEqual([]);
    expect([...markedNodes(pending).entries()]).toEqual([
      ['a', [2]],
      ['b', [3, 5]],
    ]);
  });
});
