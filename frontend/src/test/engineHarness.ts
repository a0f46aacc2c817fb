// The engine test harness: canvas fixtures and an engine that is welcomed and synced on a fake socket.
import type { CanvasEdge, CanvasNode, Proposal } from '../api/types';
import { normalizeNode } from '../sync/apply';
import { SyncEngine, type Notice } from '../sync/engine';
import { fakeSocketFactory, type FakeSocket } from './fakeSocket';

export function node(id: string, extra: Partial<CanvasNode> = {}): CanvasNode {
  // the rest as a server payload without them would be filled in
  return normalizeNode({ id, content: `content ${id}`, kind: 'fact', created_by: { id: 1, username: 'alice' }, version: 1, ...extra });
}

export function edge(id: string, source: string, target: string, extra: Partial<CanvasEdge> = {}): CanvasEdge {
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

export const ALICE = { id: 1, username: 'alice' };
export const BOB = { id: 2, username: 'bob' };

/** A pending add_node proposal. */
export function proposal(id: number, extra: Partial<Proposal> = {}): Proposal {
  return {
    id,
    canvas_id: 3,
    status: 'pending',
    tool: 'add_node',
    summary: `Add note: "缓存用 Memcached ${id}"`,
    diff: { node: { id: `new-${id}`, content: `缓存用 Memcached ${id}`, kind: 'decision', x: 100, y: 50 }, fields: [] },
    op: { type: 'node.create', node: { id: `new-${id}`, content: 'x', x: 100, y: 50 } },
    stale: false,
    stale_reason: null,
    requested_by: { id: 1, username: 'alice' },
    conversation_id: 12,
    message_id: 89,
    agent_run_id: 'run-1',
    decided_by: null,
    decided_at: null,
    forced: false,
    result_revision: null,
    error: null,
    created_at: '2026-11-30T12:00:00Z',
    ...extra,
  };
}

export function nodeChange(n: CanvasNode, action = 'updated') {
  return { entity: 'node', action, id: n.id, fields: [], data: n };
}

export function change(revision: number, changes: unknown[], clientOpId: string | null = null, user = BOB) {
  return {
    type: 'change',
    revision,
    client_op_id: clientOpId,
    actor: { kind: 'user', user, on_behalf_of: null, conversation_id: null },
    at: '2026-11-30T12:00:00Z',
    changes,
  };
}

export interface Harness {
  engine: SyncEngine;
  sock: () => FakeSocket;
  sockets: FakeSocket[];
  notices: Notice[];
}

export function setup(opts: { revision?: number; nodes?: CanvasNode[]; edges?: CanvasEdge[] } = {}): Harness {
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
