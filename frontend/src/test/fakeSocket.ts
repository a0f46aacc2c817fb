import type { Op } from '../api/types';
import type { SocketLike } from '../sync/engine';

/** A JSON frame the client sent, decoded; tests read its fields back. */
export interface SentFrame {
  type: string;
  [key: string]: unknown;
}

/** A sent `op` frame. */
export interface OpFrame extends SentFrame {
  type: 'op';
  client_op_id: string;
  op: Op;
}

/** Read a sent op as the op type the test expects (a type-level view only; the test asserts the type). */
export function opAs<T extends Op['type']>(op: Op, _type: T): Extract<Op, { type: T }> {
  return op as Extract<Op, { type: T }>;
}

/** An in-memory stand-in for the browser WebSocket, driven by the test. */
export class FakeSocket implements SocketLike {
  readyState = 0;
  sent: SentFrame[] = [];
  closed = false;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  constructor(public url: string) {}

  send(data: string) {
    if (this.readyState !== 1) throw new Error('socket not open');
    this.sent.push(JSON.parse(data) as SentFrame);
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
  sentOfType(type: 'op'): OpFrame[];
  sentOfType(type: string): SentFrame[];
  sentOfType(type: string): SentFrame[] {
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
