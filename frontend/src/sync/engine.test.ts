import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CanvasEdge, CanvasNode } from '../api/types';
import { SyncEngine, type Notice, type ServerFrame } from './engine';
import { fakeSocketFactory, type FakeSocket } from '../test/fakeSocket';

function node(id: string, extra: Partial<CanvasNode> = {}): CanvasNode {
  return {
    id,
    content: `content ${id}`,
    kind: 'fact',
    x: 0,
    y: 0,
    weight: 1,
    tags: [],
    pinned: false,
    sensitivity: 'public',
    superseded_by: null,
    archived: false,
    created_by: { id: 1, username: 'alice' },
    author_kind: 'user',
    provenance: null,
    version: 1,
    created_at: null,
    updated_at: null,
    ...extra,
  };
}

function edge(id: string, source: string, target: string, extra: Partial<CanvasEdge> = {}): CanvasEdge {
  return {
    id,
    source,
    target,
    relation: 'depends_on',
    label: '',
    created_by: null,
    version: 1,
    created_at: null,
    updated_at: null,
    ...extra,
  };
}

const ALICE = { id: 1, username: 'alice' };
const BOB = { id: 2, username: 'bob' };

function nodeChange(n: CanvasNode, action = 'updated') {
  return { entity: 'node', action, id: n.id, fields: [], data: n };
}

function change(revision: number, changes: unknown[], clientOpId: string | null = null, user = BOB) {
  return {
    type: 'change',
    revision,
    client_op_id: clientOpId,
    actor: { kind: 'user', user, on_behalf_of: null, conversation_id: null },
    at: '2026-11-30T12:00:00Z',
    changes,
  };
}

interface Harness {
  engine: SyncEngine;
  sock: () => FakeSocket;
  sockets: FakeSocket[];
  notices: Notice[];
}

function setup(opts: { revision?: number; nodes?: CanvasNode[]; edges?: CanvasEdge[] } = {}): Harness {
  const f = fakeSocketFactory();
  const engine = new SyncEngine({ url: 'ws://test/ws/canvases/1/', socketFactory: f.factory, sessionId: 's1', random: () => 0 });
  const notices: Notice[] = [];
  engine.onNotice((n) => notices.push(n));
  engine.start();
  const s = f.last();
  s.open();
  s.receive({
    type: 'welcome',
    protocol: 1,
    canvas: { id: 1, name: 'Plan', revision: opts.revision ?? 10 },
    user: ALICE,
    role: 'owner',
    connection_id: 'c-me',
  });
  s.receive({ type: 'snapshot', revision: opts.revision ?? 10, nodes: opts.nodes ?? [node('a')], edges: opts.edges ?? [] });
  s.clearSent();
  return { engine, sock: f.last, sockets: f.sockets, notices };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('SyncEngine connection', () => {
  it('sends hello with last_revision null on first connect and goes online after welcome', () => {
    const f = fakeSocketFactory();
    const engine = new SyncEngine({ url: 'ws://x/', socketFactory: f.factory, sessionId: 's1' });
    engine.start();
    expect(engine.getSnapshot().status).toBe('connecting');
    f.last().open();
    expect(f.last().sent[0]).toEqual({ type: 'hello', last_revision: null });
    f.last().receive({ type: 'welcome', canvas: { id: 3, name: 'Launch', revision: 5 }, user: ALICE, role: 'editor', connection_id: 'x' });
    const st = engine.getSnapshot();
    expect(st.status).toBe('online');
    expect(st.role).toBe('editor');
    expect(st.canvas?.name).toBe('Launch');
    expect(st.synced).toBe(false);
    f.last().receive({ type: 'snapshot', revision: 5, nodes: [node('n1')], edges: [] });
    expect(engine.getSnapshot().synced).toBe(true);
    expect(engine.getSnapshot().revision).toBe(5);
    expect([...engine.getSnapshot().doc.nodes.keys()]).toEqual(['n1']);
  });

  it('reconnects with exponential backoff from 0.5 s capped at 10 s and resets after welcome', () => {
    const h = setup();
    const first = h.sock();
    first.serverClose(1006);
    expect(h.engine.getSnapshot().status).toBe('reconnecting');
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before = h.sockets.length;
      let waited = 0;
      while (h.sockets.length === before) {
        vi.advanceTimersByTime(100);
        waited += 100;
        if (waited > 60_000) throw new Error('no reconnect');
      }
      delays.push(waited);
      h.sock().serverClose(1006);
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000]);
    // A successful connection resets the backoff.
    const before = h.sockets.length;
    vi.advanceTimersByTime(10_000);
    expect(h.sockets.length).toBe(before + 1);
    h.sock().open();
    h.sock().receive({ type: 'welcome', canvas: { id: 1, name: 'Plan', revision: 10 }, user: ALICE, role: 'owner', connection_id: 'c2' });
    h.sock().serverClose(1006);
    const n = h.sockets.length;
    vi.advanceTimersByTime(499);
    expect(h.sockets.length).toBe(n);
    vi.advanceTimersByTime(1);
    expect(h.sockets.length).toBe(n + 1);
  });

  it('sends hello with the last applied revision after a reconnect', () => {
    const h = setup({ revision: 10 });
    h.sock().receive(change(11, [nodeChange(node('a', { content: 'x' }))]));
    h.sock().serverClose();
    vi.advanceTimersByTime(500);
    h.sock().open();
    expect(h.sock().sent[0]).toEqual({ type: 'hello', last_revision: 11 });
  });

  it('stops reconnecting when membership is revoked (close 4403)', () => {
    const h = setup();
    h.sock().serverClose(4403);
    expect(h.engine.getSnapshot().status).toBe('offline');
    expect(h.engine.getSnapshot().revoked).toBe(true);
    expect(h.notices.map((n) => n.kind)).toContain('revoked');
    const n = h.sockets.length;
    vi.advanceTimersByTime(60_000);
    expect(h.sockets.length).toBe(n);
  });

  it('goOffline closes the socket and blocks reconnects until goOnline', () => {
    const h = setup();
    const s = h.sock();
    h.engine.goOffline();
    expect(s.closed).toBe(true);
    expect(h.engine.getSnapshot().status).toBe('offline');
    const n = h.sockets.length;
    vi.advanceTimersByTime(60_000);
    expect(h.sockets.length).toBe(n);
    h.engine.goOnline();
    expect(h.sockets.length).toBe(n + 1);
    expect(h.engine.getSnapshot().status).toBe('reconnecting');
  });

  it('sends ping periodically and drops a silent connection', () => {
    const h = setup();
    vi.advanceTimersByTime(2_000);
    expect(h.sock().sentOfType('ping')).toHaveLength(1);
    h.sock().receive({ type: 'pong' });
    const s = h.sock();
    vi.advanceTimersByTime(100_000);
    expect(s.closed).toBe(true);
    expect(h.engine.getSnapshot().status).not.toBe('online');
  });

  it('notices a dead network within 5 seconds and shows reconnecting', () => {
    const h = setup();
    const s = h.sock();
    // pongs keep it online
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(2_000);
      s.receive({ type: 'pong' });
    }
    expect(h.engine.getSnapshot().status).toBe('online');
    // the network drops silently: no close frame, nothing arrives
    vi.advanceTimersByTime(6_100);
    expect(s.closed).toBe(true);
    expect(h.engine.getSnapshot().status).toBe('reconnecting');
  });

  it('drops the connection at once when the browser reports it is offline', () => {
    const h = setup();
    const s = h.sock();
    h.engine.connectionLost();
    expect(s.closed).toBe(true);
    expect(h.engine.getSnapshot().status).toBe('reconnecting');
  });
});

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

describe('SyncEngine presence', () => {
  it('tracks peers and ignores my own connection', () => {
    const h = setup();
    const s = h.sock();
    s.receive({ type: 'presence', connection_id: 'c-me', user: ALICE, color: '#111', viewport: null, cursor: null });
    s.receive({ type: 'presence', connection_id: 'c-bob', user: BOB, color: '#e76f51', viewport: { x: 0, y: 0, zoom: 1, width: 100, height: 100 }, cursor: { x: 3, y: 4 } });
    expect(h.engine.getPeers().map((p) => p.connectionId)).toEqual(['c-bob']);
    expect(h.engine.getPeers()[0].color).toBe('#e76f51');
    s.receive({ type: 'presence_leave', connection_id: 'c-bob' });
    expect(h.engine.getPeers()).toHaveLength(0);
  });

  it('throttles presence to one frame per interval and sends the latest', () => {
    const h = setup();
    const s = h.sock();
    const vp = (x: number) => ({ x, y: 0, zoom: 1, width: 800, height: 600 });
    h.engine.setPresence(vp(1), { x: 1, y: 1 });
    h.engine.setPresence(vp(2), { x: 2, y: 2 });
    h.engine.setPresence(vp(3), { x: 3, y: 3 });
    expect(s.sentOfType('presence')).toHaveLength(1);
    vi.advanceTimersByTime(80);
    const sent = s.sentOfType('presence');
    expect(sent).toHaveLength(2);
    expect(sent[1].cursor).toEqual({ x: 3, y: 3 });
    h.engine.setPresence(vp(3), { x: 3, y: 3 });
    vi.advanceTimersByTime(200);
    expect(s.sentOfType('presence')).toHaveLength(2); // unchanged payload is not resent
  });

  it('clears peers when the connection drops', () => {
    const h = setup();
    h.sock().receive({ type: 'presence', connection_id: 'c-bob', user: BOB, color: '#e76f51', viewport: null, cursor: null });
    h.sock().serverClose();
    expect(h.engine.getPeers()).toHaveLength(0);
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

describe('SyncEngine chat transport', () => {
  it('passes chat, preview and agent frames to frame listeners without touching the document', () => {
    const h = setup();
    const frames: ServerFrame[] = [];
    const off = h.engine.onFrame((f) => frames.push(f));
    const before = h.engine.getSnapshot();
    h.sock().receive({ type: 'chat.delta', message_id: 89, delta: '端口是 ' });
    h.sock().receive({ type: 'context.preview', request_id: 'p-1', included: [] });
    h.sock().receive({ type: 'agent.proposal', action: 'created', proposal: { id: 1 } });
    expect(frames.map((f) => f.type)).toEqual(['chat.delta', 'context.preview', 'agent.proposal']);
    expect(h.engine.getSnapshot()).toBe(before);
    off();
    h.sock().receive({ type: 'chat.done', message: {} });
    expect(frames).toHaveLength(3);
  });

  it('routes error frames that answer a request to listeners, others to notices', () => {
    const h = setup();
    const frames: ServerFrame[] = [];
    h.engine.onFrame((f) => frames.push(f));
    h.sock().receive({ type: 'error', request_id: 'p-2', error: { code: 'NOT_FOUND', message: 'no such conversation', field: 'conversation_id' } });
    expect(frames).toHaveLength(1);
    expect(h.notices).toHaveLength(0);
    h.sock().receive({ type: 'error', error: { code: 'BAD_MESSAGE', message: 'bad', field: null } });
    expect(frames).toHaveLength(1);
    expect(h.notices.map((n) => n.code)).toEqual(['BAD_MESSAGE']);
  });

  it('sends chat frames only while connected, never queues them, and refuses op frames', () => {
    const h = setup();
    expect(h.engine.send({ type: 'chat.send', request_id: 'r-1', conversation_id: null, text: '你好', viewport: null })).toBe(true);
    expect(h.sock().sentOfType('chat.send')).toEqual([{ type: 'chat.send', request_id: 'r-1', conversation_id: null, text: '你好', viewport: null }]);
    expect(h.engine.send({ type: 'op', client_op_id: 'x', op: { type: 'node.delete', id: 'a' } })).toBe(false);
    expect(h.engine.send({ type: 'chat.send', text: 'x'.repeat(70_000) })).toBe(false);
    h.sock().serverClose(1006);
    expect(h.engine.send({ type: 'chat.stop', message_id: 1 })).toBe(false);
    vi.advanceTimersByTime(1000);
    h.sock().open();
    // after reconnecting nothing chat-related is replayed
    expect(h.sock().sentOfType('chat.stop')).toHaveLength(0);
    expect(h.engine.send({ type: 'chat.stop', message_id: 1 })).toBe(true);
  });

  it('a throwing frame listener does not break the engine', () => {
    const h = setup();
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const seen: string[] = [];
    h.engine.onFrame(() => {
      throw new Error('boom');
    });
    h.engine.onFrame((f) => seen.push(f.type));
    h.sock().receive({ type: 'chat.started', conversation: { id: 1 } });
    expect(seen).toEqual(['chat.started']);
    h.sock().receive({ type: 'change', revision: 11, changes: [] });
    expect(h.engine.getSnapshot().revision).toBe(11);
    spy.mockRestore();
  });
});
