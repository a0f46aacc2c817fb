// Revisions: snapshots, change events in and out of order, gaps and catch_up, resync (catchUp.ts).
import { describe, expect, it, vi } from 'vitest';
import { fakeTimersPerTest } from '../test/fakeTimers';
import { node, edge, ALICE, nodeChange, change, setup } from '../test/engineHarness';

fakeTimersPerTest();

describe('SyncEngine revisions', () => {
  it('ignores duplicates, applies R+1 and buffers gaps until catch_up fills them', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    s.receive(change(10, [nodeChange(node('a', { content: 'stale' }))]));
    expect(h.engine.getSnapshot().doc.nodes.get('a')?.content).toBe('content a');

    s.receive(change(11, [nodeChange(node('a', { content: 'r11' }))]));
    expect(h.engine.getSnapshot().revision).toBe(11);
    expect(h.engine.getSnapshot().doc.nodes.get('a')?.content).toBe('r11');

    // 12 was lost; 13 and 14 arrive
    s.receive(change(13, [nodeChange(node('a', { content: 'r13' }))]));
    s.receive(change(14, [nodeChange(node('b'), 'created')]));
    expect(h.engine.getSnapshot().revision).toBe(11);
    expect(h.engine.getSnapshot().doc.nodes.get('a')?.content).toBe('r11');
    // only one catch_up while it is outstanding
    expect(s.sentOfType('catch_up')).toEqual([{ type: 'catch_up', since: 11 }]);

    s.receive({
      type: 'changes',
      from: 11,
      to: 14,
      events: [
        change(12, [nodeChange(node('a', { content: 'r12' }))]),
        change(13, [nodeChange(node('a', { content: 'r13' }))]),
        change(14, [nodeChange(node('b'), 'created')]),
      ],
    });
    const st = h.engine.getSnapshot();
    expect(st.revision).toBe(14);
    expect(st.doc.nodes.get('a')?.content).toBe('r13');
    expect(st.doc.nodes.has('b')).toBe(true);
  });

  it('fills a gap from the buffer when the catch_up response only covers the missing part', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    s.receive(change(12, [nodeChange(node('b'), 'created')]));
    expect(s.sentOfType('catch_up')).toHaveLength(1);
    s.receive({ type: 'changes', from: 10, to: 11, events: [change(11, [nodeChange(node('a', { content: 'r11' }))])] });
    const st = h.engine.getSnapshot();
    expect(st.revision).toBe(12);
    expect(st.doc.nodes.has('b')).toBe(true);
    expect(st.doc.nodes.get('a')?.content).toBe('r11');
  });

  it('applies a group commit sent live as one changes frame, and catches up when it leaves a gap', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    s.receive({
      type: 'changes',
      from: 10,
      to: 12,
      events: [change(11, [nodeChange(node('a', { content: '十一' }))]), change(12, [nodeChange(node('c'), 'created')])],
    });
    expect(h.engine.getSnapshot().revision).toBe(12);
    expect(h.engine.getSnapshot().doc.nodes.get('a')?.content).toBe('十一');
    expect(s.sentOfType('catch_up')).toHaveLength(0);

    // The commit of 13 was lost; the next one (14-15) shows the gap.
    s.receive({ type: 'changes', from: 13, to: 15, events: [change(14, []), change(15, [nodeChange(node('d'), 'created')])] });
    expect(h.engine.getSnapshot().revision).toBe(12);
    expect(s.sentOfType('catch_up')).toEqual([{ type: 'catch_up', since: 12 }]);
    s.receive({ type: 'changes', from: 12, to: 13, events: [change(13, [])] });
    expect(h.engine.getSnapshot().revision).toBe(15);
    expect(h.engine.getSnapshot().doc.nodes.has('d')).toBe(true);
  });

  it('resends catch_up if the gap is still open after the timeout', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    s.receive(change(12, []));
    expect(s.sentOfType('catch_up')).toHaveLength(1);
    vi.advanceTimersByTime(5_000);
    expect(s.sentOfType('catch_up')).toHaveLength(2);
  });

  it('applies a snapshot sent in reply to catch_up and drops buffered events at or below it', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    s.receive(change(15, [nodeChange(node('x'), 'created')]));
    s.receive({ type: 'snapshot', revision: 20, nodes: [node('z')], edges: [] });
    const st = h.engine.getSnapshot();
    expect(st.revision).toBe(20);
    expect([...st.doc.nodes.keys()]).toEqual(['z']);
  });

  it('handles deleted and removed entities and drops dangling edges', () => {
    const h = setup({ revision: 1, nodes: [node('a'), node('b')], edges: [edge('e1', 'a', 'b')] });
    const s = h.sock();
    s.receive(change(2, [{ entity: 'node', action: 'removed', id: 'b', fields: [], data: null }]));
    expect(h.engine.getSnapshot().doc.nodes.has('b')).toBe(false);
    expect(h.engine.getSnapshot().doc.edges.has('e1')).toBe(false);
    s.receive(change(3, [{ entity: 'node', action: 'deleted', id: 'a', fields: [], data: null }]));
    expect(h.engine.getSnapshot().doc.nodes.size).toBe(0);
  });

  it('tracks canvas renames and my own role changes', () => {
    const h = setup({ revision: 1 });
    h.sock().receive(
      change(2, [
        { entity: 'canvas', action: 'updated', id: 1, fields: ['name'], data: { id: 1, name: '新计划' } },
        { entity: 'member', action: 'updated', id: 1, fields: ['role'], data: { user: ALICE, role: 'viewer' } },
      ]),
    );
    expect(h.engine.getSnapshot().canvas?.name).toBe('新计划');
    expect(h.engine.getSnapshot().role).toBe('viewer');
  });

  it('resync throws away the revision and asks for a fresh snapshot', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    s.receive({ type: 'resync', reason: 'visibility changed' });
    expect(s.sent).toEqual([{ type: 'hello', last_revision: null }]);
    expect(h.engine.getSnapshot().revision).toBeNull();
    // changes before the snapshot are kept aside
    s.receive(change(31, [nodeChange(node('late'), 'created')]));
    s.receive({ type: 'welcome', canvas: { id: 1, name: 'Plan', revision: 30 }, user: ALICE, role: 'owner', connection_id: 'c-me' });
    s.receive({ type: 'snapshot', revision: 30, nodes: [node('secret-now-visible')], edges: [] });
    const st = h.engine.getSnapshot();
    expect(st.revision).toBe(31);
    expect([...st.doc.nodes.keys()].sort()).toEqual(['late', 'secret-now-visible']);
  });
});
