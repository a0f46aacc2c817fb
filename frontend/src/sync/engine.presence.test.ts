// Presence of the other connections and the throttled presence frames (presence.ts).
import { describe, expect, it, vi } from 'vitest';
import { fakeTimersPerTest } from '../test/fakeTimers';
import { ALICE, BOB, setup } from '../test/engineHarness';

fakeTimersPerTest();

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
