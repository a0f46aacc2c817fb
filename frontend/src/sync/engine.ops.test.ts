// The op queue: optimistic apply, acks, rejects, resend after reconnect, pacing, and the cached rebase (pendingQueue.ts, sendPacer.ts).
import { describe, expect, it, vi } from 'vitest';
import { fakeTimersPerTest } from '../test/fakeTimers';
import { SyncEngine } from './engine';
import { fakeSocketFactory } from '../test/fakeSocket';
import { node, edge, ALICE, BOB, nodeChange, change, setup } from '../test/engineHarness';

fakeTimersPerTest();

describe('SyncEngine ops', () => {
  it('applies an op optimistically, sends it and confirms it on ack', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    const id = h.engine.submit({ type: 'node.create', node: { id: 'n-new', content: '你好', x: 5, y: 6 } });
    expect(id).toBe('s1-1');
    expect(s.sentOfType('op')).toEqual([
      { type: 'op', client_op_id: 's1-1', op: { type: 'node.create', node: { id: 'n-new', content: '你好', x: 5, y: 6 } } },
    ]);
    let st = h.engine.getSnapshot();
    expect(st.doc.nodes.get('n-new')?.content).toBe('你好');
    expect(st.server.nodes.has('n-new')).toBe(false);
    expect(st.pending).toHaveLength(1);
    expect(st.pendingIds.has('n-new')).toBe(true);

    s.receive({ type: 'ack', client_op_id: 's1-1', revision: 11, duplicate: false, changes: [nodeChange(node('n-new', { content: '你好', version: 1 }), 'created')] });
    st = h.engine.getSnapshot();
    expect(st.pending).toHaveLength(0);
    expect(st.revision).toBe(11);
    expect(st.server.nodes.get('n-new')?.version).toBe(1);

    // the change event for the same revision is then ignored
    s.receive(change(11, [nodeChange(node('n-new', { content: 'should not apply' }), 'created')], 's1-1', ALICE));
    expect(h.engine.getSnapshot().doc.nodes.get('n-new')?.content).toBe('你好');
  });

  it('drops a pending op when its change event arrives before the ack', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    h.engine.submit({ type: 'node.move', id: 'a', x: 100, y: 200 });
    s.receive(change(11, [nodeChange(node('a', { x: 100, y: 200 }))], 's1-1', ALICE));
    expect(h.engine.getSnapshot().pending).toHaveLength(0);
    s.receive({ type: 'ack', client_op_id: 's1-1', revision: 11, duplicate: false, changes: [] });
    expect(h.engine.getSnapshot().revision).toBe(11);
    expect(h.engine.getSnapshot().doc.nodes.get('a')?.x).toBe(100);
  });

  it('does not confuse another user’s client_op_id with mine', () => {
    const h = setup({ revision: 10 });
    h.engine.submit({ type: 'node.move', id: 'a', x: 1, y: 1 });
    h.sock().receive(change(11, [], 's1-1', BOB));
    expect(h.engine.getSnapshot().pending).toHaveLength(1);
  });

  it('drops a duplicate ack without applying anything', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    h.engine.submit({ type: 'node.move', id: 'a', x: 7, y: 7 });
    s.receive({ type: 'ack', client_op_id: 's1-1', revision: 9, duplicate: true, changes: [nodeChange(node('a', { x: -1 }))] });
    const st = h.engine.getSnapshot();
    expect(st.pending).toHaveLength(0);
    expect(st.revision).toBe(10);
    expect(st.doc.nodes.get('a')?.x).toBe(0);
  });

  it('keeps an op acked ahead of R visible until the missing revisions arrive', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    h.engine.submit({ type: 'node.update', id: 'a', fields: { content: 'mine' } });
    s.receive({ type: 'ack', client_op_id: 's1-1', revision: 12, duplicate: false, changes: [nodeChange(node('a', { content: 'mine' }))] });
    let st = h.engine.getSnapshot();
    expect(st.revision).toBe(10);
    expect(st.doc.nodes.get('a')?.content).toBe('mine'); // still shown
    expect(st.pending).toHaveLength(1);
    expect(s.sentOfType('catch_up')).toEqual([{ type: 'catch_up', since: 10 }]);
    s.receive({ type: 'changes', from: 10, to: 12, events: [change(11, [nodeChange(node('b'), 'created')]), change(12, [nodeChange(node('a', { content: 'mine' }))], 's1-1', ALICE)] });
    st = h.engine.getSnapshot();
    expect(st.revision).toBe(12);
    expect(st.pending).toHaveLength(0);
    expect(st.doc.nodes.get('a')?.content).toBe('mine');
    expect(st.doc.nodes.has('b')).toBe(true);
  });

  it('removes a rejected op, restores the server state and reports the error', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    h.engine.submit({ type: 'node.update', id: 'a', fields: { content: 'x'.repeat(10_001) } });
    expect(h.engine.getSnapshot().doc.nodes.get('a')?.content).toHaveLength(10_001);
    s.receive({ type: 'reject', client_op_id: 's1-1', error: { code: 'INVALID', message: 'content is too long', field: 'content' } });
    const st = h.engine.getSnapshot();
    expect(st.pending).toHaveLength(0);
    expect(st.doc.nodes.get('a')?.content).toBe('content a');
    expect(h.notices).toHaveLength(1);
    expect(h.notices[0]).toMatchObject({ kind: 'reject', code: 'INVALID', message: 'content is too long', field: 'content' });
  });

  it('resends a RATE_LIMITED op after a delay instead of dropping it', () => {
    const h = setup({ revision: 10 });
    const s = h.sock();
    h.engine.submit({ type: 'node.move', id: 'a', x: 1, y: 2 });
    s.clearSent();
    s.receive({ type: 'reject', client_op_id: 's1-1', error: { code: 'RATE_LIMITED', message: 'slow down' } });
    expect(h.engine.getSnapshot().pending).toHaveLength(1);
    expect(h.notices).toHaveLength(0);
    vi.advanceTimersByTime(600);
    expect(s.sentOfType('op').map((m) => m.client_op_id)).toEqual(['s1-1']);
  });

  it('rebases pending ops on top of remote changes', () => {
    const h = setup({ revision: 10, nodes: [node('a', { x: 0, y: 0, content: 'old' })] });
    const s = h.sock();
    h.engine.submit({ type: 'node.move', id: 'a', x: 50, y: 60 });
    s.receive(change(11, [nodeChange(node('a', { x: 0, y: 0, content: 'bob edited' }))]));
    const shown = h.engine.getSnapshot().doc.nodes.get('a')!;
    expect(shown.content).toBe('bob edited');
    expect(shown.x).toBe(50);
    expect(shown.y).toBe(60);
    expect(h.engine.getSnapshot().server.nodes.get('a')?.x).toBe(0);
    // a remote delete wins: the pending move no longer shows anything
    s.receive(change(12, [{ entity: 'node', action: 'deleted', id: 'a', fields: [], data: null }]));
    expect(h.engine.getSnapshot().doc.nodes.has('a')).toBe(false);
  });

  it('queues ops while offline and resends them in order with the same ids after hello', () => {
    const h = setup({ revision: 10 });
    h.engine.goOffline();
    const a = h.engine.submit({ type: 'node.create', node: { id: 'n1', content: 'offline 1', x: 0, y: 0 } });
    const b = h.engine.submit({ type: 'node.create', node: { id: 'n2', content: 'offline 2', x: 10, y: 0 } });
    const c = h.engine.submit({ type: 'edge.create', edge: { id: 'e1', source: 'n1', target: 'n2', relation: 'causes' } });
    let st = h.engine.getSnapshot();
    expect(st.pending.map((p) => p.clientOpId)).toEqual([a, b, c]);
    expect(st.doc.edges.get('e1')?.relation).toBe('causes');

    h.engine.goOnline();
    const s = h.sock();
    s.open();
    expect(s.sent.map((m) => m.type)).toEqual(['hello', 'op', 'op', 'op']);
    expect(s.sent[0]).toEqual({ type: 'hello', last_revision: 10 });
    expect(s.sent.slice(1).map((m) => m.client_op_id)).toEqual([a, b, c]);

    s.receive({ type: 'welcome', canvas: { id: 1, name: 'Plan', revision: 11 }, user: ALICE, role: 'owner', connection_id: 'c3' });
    // The first op had been committed before we went offline (ack lost): the
    // server replays it, then acks the resend as a duplicate.
    s.receive({ type: 'changes', from: 10, to: 11, events: [change(11, [nodeChange(node('n1', { content: 'offline 1' }), 'created')], a, ALICE)] });
    s.receive({ type: 'ack', client_op_id: a, revision: 11, duplicate: true, changes: [] });
    s.receive({ type: 'ack', client_op_id: b, revision: 12, duplicate: false, changes: [nodeChange(node('n2', { content: 'offline 2', x: 10 }), 'created')] });
    s.receive({ type: 'ack', client_op_id: c, revision: 13, duplicate: false, changes: [{ entity: 'edge', action: 'created', id: 'e1', fields: [], data: edge('e1', 'n1', 'n2', { relation: 'causes' }) }] });
    st = h.engine.getSnapshot();
    expect(st.pending).toHaveLength(0);
    expect(st.revision).toBe(13);
    expect([...st.server.nodes.keys()].sort()).toEqual(['a', 'n1', 'n2']);
    expect(st.server.edges.get('e1')?.source).toBe('n1');
    expect(s.sentOfType('catch_up')).toHaveLength(0);
  });

  it('does not resend ops that were already acknowledged', () => {
    const h = setup({ revision: 10 });
    h.engine.submit({ type: 'node.update', id: 'a', fields: { content: 'one' } });
    h.engine.submit({ type: 'node.update', id: 'a', fields: { content: 'two' } });
    // ack for the second arrives ahead of revision 11
    h.sock().receive({ type: 'ack', client_op_id: 's1-2', revision: 12, duplicate: false, changes: [] });
    h.sock().serverClose();
    vi.advanceTimersByTime(500);
    h.sock().open();
    expect(h.sock().sentOfType('op').map((m) => m.client_op_id)).toEqual(['s1-1']);
  });

  it('sends ops queued while connecting only after hello', () => {
    const f = fakeSocketFactory();
    const engine = new SyncEngine({ url: 'ws://x/', socketFactory: f.factory, sessionId: 'q' });
    engine.start();
    engine.submit({ type: 'node.create', node: { id: 'n', content: '', x: 0, y: 0 } });
    expect(f.last().sent).toHaveLength(0);
    f.last().open();
    expect(f.last().sent.map((m) => m.type)).toEqual(['hello', 'op']);
  });

  it('refuses ops larger than a WebSocket frame', () => {
    const h = setup();
    h.engine.submit({ type: 'node.update', id: 'a', fields: { content: '长'.repeat(30_000) } });
    expect(h.engine.getSnapshot().pending).toHaveLength(0);
    expect(h.sock().sentOfType('op')).toHaveLength(0);
    expect(h.notices[0].kind).toBe('too-large');
  });
});

describe('SyncEngine view cache', () => {
  it('leaves the engine state alone on presence frames: only presence listeners hear them', () => {
    const h = setup();
    h.engine.submit({ type: 'node.move', id: 'a', x: 3, y: 3 });
    const before = h.engine.getSnapshot();
    let stateCalls = 0;
    let peerCalls = 0;
    h.engine.subscribe(() => stateCalls++);
    h.engine.subscribePeers(() => peerCalls++);
    const peersBefore = h.engine.getPeers();
    h.sock().receive({ type: 'presence', connection_id: 'c-bob', user: BOB, color: '#e76f51', viewport: null, cursor: { x: 1, y: 1 } });
    h.sock().receive({ type: 'presence', connection_id: 'c-bob', user: BOB, color: '#e76f51', viewport: null, cursor: { x: 2, y: 1 } });
    expect(h.engine.getSnapshot()).toBe(before);
    expect(stateCalls).toBe(0);
    expect(peerCalls).toBe(2);
    expect(h.engine.getPeers()).not.toBe(peersBefore);
    expect(h.engine.getPeers()[0].cursor).toEqual({ x: 2, y: 1 });
    expect(h.engine.getSnapshot().doc.nodes.get('a')?.x).toBe(3);
  });
});
