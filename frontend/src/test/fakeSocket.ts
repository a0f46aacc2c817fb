import type { SocketLike } from '../sync/engine';

/** An in-memory stand-in for the browser WebSocket, driven by the test. */
export class FakeSocket implements SocketLike {
  readyState = 0;
  sent: any[] = [];
  closed = false;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  constructor(public url: string) {}

  send(data: string) {
    if (this.readyState !== 1) throw new Error('socket not open');
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.closed = true;
    this.readyState = 3;
  }

  // ---- test driver
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(msg: unknown) {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
  serverClose(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  sentOfType(type: string) {
    return this.sent.filter((m) => m.type === type);
  }
  clearSent() {
    this.sent = [];
  }
}

export function fakeSocketFactory() {
  const sockets: FakeSocket[] = [];
  const factory = (url: string) => {
    const s = new FakeSocket(url);
    sockets.push(s);
    return s;
  };
  return { sockets, factory, last: () => sockets[sockets.length - 1] };
}
