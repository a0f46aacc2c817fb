// Op order under rate limits and across page loads (issue: an edge whose node
// was rate-limited used to be dropped, and a move could end at an older spot).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SyncEngine, type Notice, type PendingStore, type StoredOp } from './engine';
import { fakeSocketFactory, opAs } from '../test/fakeSocket';
import { ALICE, node } from '../test/engineHarness';

function memoryStore(initial: { userId: number | string | null; ops: StoredOp[] } | null = null) {
  const saved: { userId: number | string | null; ops: StoredOp[] }[] = [];
  const store: PendingStore = {
    load: () => Promise.resolve(initial),
    save: (state) => {
      saved.push({ userId: state.userId, ops: state.ops.map((o) => ({ ...o })) });
    },
  };
  return { store, saved, last: () => saved[saved.length - 1] };
}

function boot(opts: { store?: PendingStore; opsPerSecond?: number; maxInFlight?: number } = {}) {
  const f = fakeSocketFactory();
  const engine = new SyncEngine({
    url: 'ws://t/', socketFactory: f.factory, sessionId: 'k', random: () => 0,
    pendingStore: opts.store, opsPerSecond: opts.opsPerSecond, maxInFlight: opts.maxInFlight,
    // these tests answer no pings
    pingIntervalMs: 3_600_000, idleTimeoutMs: 3_600_000,
  });
  const notices: Notice[] = [];
  engine.onNotice((n) => notices.push(n));
  engine.start();
  return { engine, f, notices };
}

/** Let the store's load() promise chain settle. */
async function settle() {
  for (let i = 0; i < 6; i++) await Promise.resolve();
}

async function welcome(f: ReturnType<typeof fakeSocketFactory>, user = ALICE) {
  const s = f.last();
  s.open();
  s.receive({ type: 'welcome', canvas: { id: 1, name: 'P', revision: 5 }, user, role: 'owner', connection_id: 'me' });
  s.receive({ type: 'snapshot', revision: 5, nodes: [node('a')], edges: [] });
  await settle();
  return s;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('ops under RATE_LIMITED', () => {
  it('pauses and resends from the limited op in order; the dependent edge is not dropped', async () => {
    const { engine, f, notices } = boot();
    const s = await welcome(f);
    const create = engine.submit({ type: 'node.create', node: { id: 'n1', content: 'new', x: 1, y: 1 } });
    const link = engine.submit({ type: 'edge.create', edge: { id: 'e1', source: 'a', target: 'n1', relation: 'causes' } });
    s.clearSent();
    s.receive({ type: 'reject', client_op_id: create, error: { code: 'RATE_LIMITED', message: 'slow', retry_after_ms: 300 } });
    s.receive({ type: 'reject', client_op_id: link, error: { code: 'NOT_FOUND', message: 'no node n1' } });
    expect(engine.getSnapshot().pending.map((p) => p.clientOpId)).toEqual([create, link]);
    expect(s.sentOfType('op')).toHaveLength(0); // paused
    vi.advanceTimersByTime(299);
    expect(s.sentOfType('op')).toHaveLength(0);
    vi.advanceTimersByTime(2);
    expect(s.sentOfType('op').map((m) => m.client_op_id)).toEqual([create, link]);
    expect(notices).toHaveLength(0);
  });

  it('a later move that committed first is sent again after the older one', async () => {
    const { engine, f } = boot();
    const s = await welcome(f);
    const first = engine.submit({ type: 'node.move', id: 'a', x: 10, y: 10 });
    const second = engine.submit({ type: 'node.move', id: 'a', x: 20, y: 20 });
    s.receive({ type: 'reject', client_op_id: first, error: { code: 'RATE_LIMITED', message: 'slow' } });
    s.receive({ type: 'ack', client_op_id: second, revision: 6, duplicate: false,
      changes: [{ entity: 'node', action: 'updated', id: 'a', fields: ['x', 'y'], data: node('a', { x: 20, y: 20 }) }] });
    s.clearSent();
    vi.advanceTimersByTime(1_000);
    const sent = s.sentOfType('op');
    expect(sent.map((m) => [opAs(m.op, 'node.move').x, opAs(m.op, 'node.move').y])).toEqual([[10, 10], [20, 20]]);
    expect(sent[0].client_op_id).toBe(first);
    expect(sent[1].client_op_id).not.toBe(second); // a new op: the server would dedupe the old id
    // the display shows the newest intent throughout
    expect(engine.getSnapshot().doc.nodes.get('a')?.x).toBe(20);
  });

  it('also replays when the change event of the later move arrives before its ack', async () => {
    const { engine, f } = boot();
    const s = await welcome(f);
    const first = engine.submit({ type: 'node.move', id: 'a', x: 1, y: 1 });
    const second = engine.submit({ type: 'node.move', id: 'a', x: 2, y: 2 });
    s.receive({ type: 'reject', client_op_id: first, error: { code: 'RATE_LIMITED', message: 'slow' } });
    s.receive({ type: 'change', revision: 6, client_op_id: second, actor: { kind: 'user', user: ALICE }, at: '2026-12-01T10:00:00Z',
      changes: [{ entity: 'node', action: 'updated', id: 'a', fields: ['x', 'y'], data: node('a', { x: 2, y: 2 }) }] });
    s.receive({ type: 'ack', client_op_id: second, revision: 6, duplicate: false, changes: [] });
    s.clearSent();
    vi.advanceTimersByTime(1_000);
    expect(s.sentOfType('op').map((m) => opAs(m.op, 'node.move').x)).toEqual([1, 2]);
  });

  it('never drops an op for rate limiting, however often it is refused', async () => {
    const { engine, f, notices } = boot();
    const s = await welcome(f);
    const id = engine.submit({ type: 'node.update', id: 'a', fields: { content: 'kept' } });
    for (let i = 0; i < 12; i++) {
      s.receive({ type: 'reject', client_op_id: id, error: { code: 'RATE_LIMITED', message: 'slow' } });
      vi.advanceTimersByTime(20_000);
    }
    expect(engine.getSnapshot().pending.map((p) => p.clientOpId)).toEqual([id]);
    expect(notices).toHaveLength(0);
    expect(s.sentOfType('op').length).toBeGreaterThanOrEqual(12);
  });

  it('paces a long offline queue below the server limit instead of flooding it', async () => {
    const { engine, f } = boot({ opsPerSecond: 20, maxInFlight: 1_000 });
    engine.goOffline();
    for (let i = 0; i < 60; i++) engine.submit({ type: 'node.move', id: 'a', x: i, y: i });
    engine.goOnline();
    const s = await welcome(f);
    expect(s.sentOfType('op')).toHaveLength(20);
    vi.advanceTimersByTime(1_000);
    expect(s.sentOfType('op')).toHaveLength(40);
    vi.advanceTimersByTime(1_000);
    const xs = s.sentOfType('op').map((m) => opAs(m.op, 'node.move').x);
    expect(xs).toEqual([...Array(60).keys()]);
  });

  it('keeps at most maxInFlight ops unanswered and sends the next as answers arrive', async () => {
    const { engine, f } = boot({ opsPerSecond: 1_000, maxInFlight: 3 });
    const s = await welcome(f);
    const ids = [1, 2, 3, 4, 5].map((i) => engine.submit({ type: 'node.move', id: 'a', x: i, y: i }));
    expect(s.sentOfType('op').map((m) => m.client_op_id)).toEqual(ids.slice(0, 3));
    s.receive({ type: 'ack', client_op_id: ids[0], revision: 6, duplicate: false, changes: [] });
    vi.advanceTimersByTime(5);
    expect(s.sentOfType('op').map((m) => m.client_op_id)).toEqual(ids.slice(0, 4));
  });
});

describe('pending ops survive a reload', () => {
  it('saves unacknowledged ops and forgets acknowledged ones', async () => {
    const mem = memoryStore();
    const { engine, f } = boot({ store: mem.store });
    await settle();
    const s = await welcome(f);
    const a = engine.submit({ type: 'node.update', id: 'a', fields: { content: '你好，世界' } });
    expect(mem.last().ops.map((o) => o.clientOpId)).toEqual([a]);
    expect(mem.last().userId).toBe(1);
    expect(engine.hasUnsentOps()).toBe(true);
    s.receive({ type: 'ack', client_op_id: a, revision: 6, duplicate: false, changes: [] });
    expect(mem.last().ops).toEqual([]);
    expect(engine.hasUnsentOps()).toBe(false);
  });

  it('sends the ops of the last page load first, with their ids, once the same user is confirmed', async () => {
    const mem = memoryStore({ userId: 1, ops: [{ clientOpId: 'old-1', op: { type: 'node.move', id: 'a', x: 5, y: 5 } }] });
    const { engine, f } = boot({ store: mem.store });
    await settle();
    engine.submit({ type: 'node.move', id: 'a', x: 9, y: 9 });
    const s = f.last();
    s.open();
    expect(s.sentOfType('op')).toHaveLength(0); // not before we know who we are
    s.receive({ type: 'welcome', canvas: { id: 1, name: 'P', revision: 5 }, user: ALICE, role: 'owner', connection_id: 'me' });
    expect(s.sentOfType('op').map((m) => m.client_op_id)).toEqual(['old-1', 'k-1']);
  });

  it("discards stored ops of another user instead of replaying them under this login", async () => {
    const mem = memoryStore({ userId: 2, ops: [{ clientOpId: 'bob-1', op: { type: 'node.delete', id: 'a' } }] });
    const { engine, f } = boot({ store: mem.store });
    await settle();
    const s = await welcome(f);
    expect(s.sentOfType('op')).toHaveLength(0);
    expect(engine.getSnapshot().pending).toHaveLength(0);
    expect(mem.last()).toEqual({ userId: 1, ops: [] });
  });
});
