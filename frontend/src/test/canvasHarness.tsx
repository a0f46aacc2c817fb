// A CanvasPage on a fake socket, for component tests (same setup as pages/CanvasPage.test.tsx).
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { CanvasPage } from '../pages/CanvasPage';
import { Toasts } from '../components/Toasts';
import { FakeSocket } from './fakeSocket';
import { installTestHooks } from '../lib/testHooks';
import type { CanvasNode } from '../api/types';

const sockets: FakeSocket[] = [];

class TestWebSocket extends FakeSocket {
  constructor(url: string) {
    super(url);
    sockets.push(this);
  }
}

export function node(id: string, extra: Partial<CanvasNode> = {}): CanvasNode {
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
    created_at: '2026-11-30T12:00:00Z',
    updated_at: '2026-11-30T12:00:00Z',
    ...extra,
  };
}

export const NODES = [
  node('n-db', { content: '数据库端口是 5433', kind: 'config', pinned: true, sensitivity: 'internal', tags: ['db'], weight: 4 }),
  node('n-old', { content: 'Launch on Monday', kind: 'decision', superseded_by: 'n-new', x: 0, y: 200 }),
  node('n-new', { content: 'Launch on Wednesday', kind: 'decision', x: 300, y: 200, author_kind: 'agent' }),
  node('n-key', { content: 'API key lives in vault', sensitivity: 'secret', archived: true, x: 600, y: 0 }),
];

let container: HTMLDivElement;
let root: Root;

export async function flush() {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

export async function renderCanvas(role: 'owner' | 'editor' | 'viewer' = 'owner') {
  container = document.createElement('div');
  container.style.width = '1200px';
  container.style.height = '800px';
  document.body.appendChild(container);
  root = createRoot(container);
  await act(async () => {
    root.render(
      <>
        <CanvasPage canvasId="7" />
        <Toasts />
      </>,
    );
  });
  await flush();
  const sock = sockets[sockets.length - 1];
  expect(sock.url).toMatch(/\/ws\/canvases\/7\/$/);
  await act(async () => {
    sock.open();
    sock.receive({ type: 'welcome', protocol: 1, canvas: { id: 7, name: '发布计划', revision: 3 }, user: { id: 1, username: 'alice' }, role, connection_id: 'me' });
    sock.receive({ type: 'snapshot', revision: 3, nodes: NODES, edges: [{ id: 'e1', source: 'n-new', target: 'n-old', relation: 'supersedes', label: '', created_by: null, version: 1, created_at: null, updated_at: null }] });
  });
  await flush();
  return sock;
}

export const q = (sel: string) => container.querySelector(sel) as HTMLElement | null;
export const byTestId = (id: string) => q(`[data-testid="${id}"]`);

/** Registers the beforeEach/afterEach of a canvas test (a vitest lifecycle helper, not a React hook). */
export function installCanvasHarness() {
beforeEach(() => {
  sockets.length = 0;
  installTestHooks();
  vi.stubGlobal('WebSocket', TestWebSocket);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (String(url).startsWith('/api/canvases/7/'))
        return new Response(JSON.stringify({ id: 7, name: '发布计划', description: '', role: 'owner', revision: 3, member_count: 2, created_at: '', updated_at: '' }), { status: 200 });
      return new Response(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'nope', field: null } }), { status: 404 });
    }),
  );
});

afterEach(async () => {
  await act(async () => root.unmount());
  container.remove();
  vi.unstubAllGlobals();
});
}
