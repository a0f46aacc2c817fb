// Additive engine behaviour for editing together: presence activity and CONFLICT notices.
import { describe, expect, it } from 'vitest';
import { SyncEngine, type Notice } from './engine';
import { fakeSocketFactory } from '../test/fakeSocket';

function started() {
  const f = fakeSocketFactory();
  const engine = new SyncEngine({ url: 'ws://x/ws/canvases/1/', socketFactory: f.factory, presenceIntervalMs: 0 });
  engine.start();
  const sock = f.last();
  sock.open();
  sock.receive({ type: 'welcome', protocol: 1, canvas: { id: 1, name: 'c', revision: 0 }, user: { id: 1, username: 'alice' }, role: 'owner', connection_id: 'me' });
  sock.receive({ type: 'snapshot', revision: 0, nodes: [], edges: [] });
  return { engine, sock };
}

describe('SyncEngine editing activity', () => {
  it('sends editing and dragging with the presence frame', () => {
    const { engine, sock } = started();
    engine.setPresence({ x: 0, y: 0, zoom: 1, width: 100, height: 100 }, null);
    engine.setActivity({ editing: 'n1' });
    engine.setActivity({ dragging: { id: 'n1', x: 5, y: 6 } });
    const last = sock.sentOfType('presence').pop();
    expect(last).toMatchObject({ editing: 'n1', dragging: { id: 'n1', x: 5, y: 6 } });
    engine.setActivity({ editing: null, dragging: null });
    expect(sock.sentOfType('presence').pop()).toMatchObject({ editing: null, dragging: null });
  });

  it('keeps what peers are editing and dragging', () => {
    const { engine, sock } = started();
    sock.receive({ type: 'presence', connection_id: 'b1', user: { id: 2, username: 'bob' }, color: '#123456', viewport: null, cursor: null, editing: 'n9', dragging: { id: 'n9', x: 1, y: 2 } });
    const [peer] = engine.getPeers();
    expect(peer.editing).toBe('n9');
    expect(peer.dragging).toEqual({ id: 'n9', x: 1, y: 2 });
  });

  it('passes the server node of a CONFLICT reject on to the notice', () => {
    const { engine, sock } = started();
    const notices: Notice[] = [];
    engine.onNotice((n) => notices.push(n));
    const id = engine.submit({ type: 'node.update', id: 'n1', fields: { content: 'mine' }, base_version: 1 });
    const current = { id: 'n1', content: 'theirs', version: 2 };
    sock.receive({ type: 'reject', client_op_id: id, error: { code: 'CONFLICT', message: 'stale', field: 'fields.content', current } });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ kind: 'reject', code: 'CONFLICT', current });
    expect(notices[0].op).toEqual({ type: 'node.update', id: 'n1', fields: { content: 'mine' }, base_version: 1 });
    expect(engine.getSnapshot().pending).toHaveLength(0);
  });
});
