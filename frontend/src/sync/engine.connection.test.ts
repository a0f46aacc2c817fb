// The socket lifecycle: hello, welcome, reconnect with backoff, heartbeat, revoked, offline (connection.ts, reconnect.ts).
import { describe, expect, it, vi } from 'vitest';
import { fakeTimersPerTest } from '../test/fakeTimers';
import { SyncEngine } from './engine';
import { fakeSocketFactory } from '../test/fakeSocket';
import { node, ALICE, nodeChange, change, setup } from '../test/engineHarness';

fakeTimersPerTest();

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
