// A CanvasPage on a fake socket, for component tests (pages/CanvasPage.test.tsx, chat/ChatPanel.test.tsx, ...).
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { CanvasPage } from '../pages/CanvasPage';
import { Toasts } from '../components/Toasts';
import { FakeSocket } from './fakeSocket';
import { installTestHooks } from '../lib/testHooks';
import type { CanvasEdge, CanvasNode } from '../api/types';
import { edge, node as engineNode } from './engineHarness';

const sockets: FakeSocket[] = [];

class TestWebSocket extends FakeSocket {
  constructor(url: string) {
    super(url);
    sockets.push(this);
  }
}

const STAMP = '2026-11-30T12:00:00Z';

/** A node as the page gets it from the server: like the engine fixture, with timestamps. */
export function node(id: string, extra: Partial<CanvasNode> = {}): CanvasNode {
  return engineNode(id, { created_at: STAMP, updated_at: STAMP, ...extra });
}

export const NODES = [
  node('n-db', { content: '数据库端口是 5433', kind: 'config', pinned: true, sensitivity: 'internal', tags: ['db'], weight: 4 }),
  node('n-old', { content: 'Launch on Monday', kind: 'decision', superseded_by: 'n-new', x: 0, y: 200 }),
  node('n-new', { content: 'Launch on Wednesday', kind: 'decision', x: 300, y: 200, author_kind: 'agent' }),
  node('n-key', { content: 'API key lives in vault', sensitivity: 'secret', archived: true, x: 600, y: 0 }),
];

export const EDGES = [edge('e1', 'n-new', 'n-old', { relation: 'supersedes' })];

let container: HTMLDivElement;
let root: Root;

export async function flush(ms = 0) {
  await act(async () => {
    await new Promise((r) => setTimeout(r, ms));
  });
}

export interface RenderOptions {
  /** Passed to CanvasPage as its chat panel. */
  chat?: ReactNode;
  width?: number;
  height?: number;
  nodes?: CanvasNode[];
  edges?: CanvasEdge[];
  /** How long to wait after the snapshot. */
  settleMs?: number;
}

export async function renderCanvas(role: 'owner' | 'editor' | 'viewer' = 'owner', opts: RenderOptions = {}) {
  container = document.createElement('div');
  container.style.width = `${opts.width ?? 1200}px`;
  container.style.height = `${opts.height ?? 800}px`;
  document.body.appendChild(container);
  root = createRoot(container);
  await act(async () => {
    root.render(
      <>
        <CanvasPage canvasId="7" chat={opts.chat} />
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
    sock.receive({ type: 'snapshot', revision: 3, nodes: opts.nodes ?? NODES, edges: opts.edges ?? EDGES });
  });
  await flush(opts.settleMs ?? 0);
  return sock;
}

export const q = (sel: string) => container.querySelector(sel) as HTMLElement | null;
export const byTestId = (id: string) => q(`[data-testid="${id}"]`);

export function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function defaultFetch(url: string): Response {
  if (url.startsWith('/api/canvases/7/'))
    return new Response(JSON.stringify({ id: 7, name: '发布计划', description: '', role: 'owner', revision: 3, member_count: 2, created_at: '', updated_at: '' }), { status: 200 });
  return new Response(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'nope', field: null } }), { status: 404 });
}

export interface HarnessOptions {
  /** Answers the page's fetch calls (default: the canvas 7 detail, 404 for the rest). */
  fetch?: (url: string) => Response;
  beforeEach?: () => void;
  afterEach?: () => void;
}

/** Registers the beforeEach/afterEach of a canvas test (a vitest lifecycle helper, not a React hook). */
export function installCanvasHarness(opts: HarnessOptions = {}) {
  const answer = opts.fetch ?? defaultFetch;
  beforeEach(() => {
    sockets.length = 0;
    opts.beforeEach?.();
    installTestHooks();
    vi.stubGlobal('WebSocket', TestWebSocket);
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => answer(String(url))),
    );
  });

  afterEach(async () => {
    opts.afterEach?.();
    await act(async () => root.unmount());
    container.remove();
    vi.unstubAllGlobals();
  });
}
