// Convergence fuzz of the shipped client: several SyncEngines (engine.ts +
// apply.ts, exactly as the browser runs them) against a real Daphne cluster,
// over faulty sockets. Driven by tests/reliability/test_ts_engine_fuzz.py.
import type { CanvasEdge, CanvasNode, Op } from '../../api/types';
import { SyncEngine, type Notice, type SocketLike } from '../engine';
import { FaultySocket, type Faults, type FaultStats } from './faultySocket';
import { randomOp } from './opgen';
import { pick, seededRng, type Rng } from './rng';

export interface FuzzUser {
  username: string;
  token: string;
  role: 'owner' | 'editor' | 'viewer';
}

export interface FuzzConfig {
  apiUrls: string[];
  wsUrls: string[]; // ws://host:port (the path is added per canvas)
  origin: string;
  users: FuzzUser[];
  seeds: number[];
  clients: number;
  opsPerClient: number;
  faults: Faults;
  killEvery: number; // ops between random socket kills (all clients together)
  convergeTimeoutMs: number;
}

export interface SeedResult {
  seed: number;
  canvasId: number;
  ops: number;
  acked: number;
  rejected: Record<string, number>;
  lost: number;
  diverged: string[];
  converged_ms: number | null;
  stats: FaultStats & { rate_limited: number; offline_spells: number };
  reject_samples: string[];
}

async function committedOpIds(cfg: FuzzConfig, canvasId: number): Promise<Set<string>> {
  const owner = cfg.users.find((u) => u.role === 'owner')!;
  const ids = new Set<string>();
  let since = 0;
  for (;;) {
    const page = await api<{ events?: { revision: number; client_op_id: string | null }[]; has_more?: boolean }>(
      cfg, owner, `/api/canvases/${canvasId}/changes/?since=${since}&limit=500`);
    const events = page.events ?? [];
    for (const ev of events) if (ev.client_op_id) ids.add(ev.client_op_id);
    if (events.length === 0 || !page.has_more) break;
    since = events[events.length - 1].revision;
  }
  return ids;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Call the REST API as `user`; T is the JSON shape the caller expects from `path` (not checked). */
async function api<T>(cfg: FuzzConfig, user: FuzzUser, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${cfg.apiUrls[0]}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Token ${user.token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

async function newCanvas(cfg: FuzzConfig, seed: number): Promise<number> {
  const owner = cfg.users.find((u) => u.role === 'owner')!;
  const canvas = await api<{ id: number }>(cfg, owner, '/api/canvases/', { name: `engine fuzz ${seed}` });
  for (const u of cfg.users) {
    if (u !== owner) await api<unknown>(cfg, owner, `/api/canvases/${canvas.id}/members/`, { username: u.username, role: u.role });
  }
  return canvas.id;
}

const NODE_FIELDS: (keyof CanvasNode)[] = ['content', 'kind', 'x', 'y', 'weight', 'tags', 'pinned', 'sensitivity', 'superseded_by', 'archived', 'version'];
const EDGE_FIELDS: (keyof CanvasEdge)[] = ['source', 'target', 'relation', 'label', 'version'];

function pickFields<T>(obj: T, fields: (keyof T)[]): string {
  return JSON.stringify(fields.map((f) => obj[f]));
}

/** The part of GET /api/canvases/<id>/snapshot/ the fuzz compares. */
interface ServerSnapshot {
  revision: number;
  nodes: CanvasNode[];
  edges: CanvasEdge[];
}

function diffDocs(name: string, engine: SyncEngine, snap: ServerSnapshot): string[] {
  const st = engine.getSnapshot();
  const out: string[] = [];
  if (st.revision !== snap.revision) out.push(`${name}: revision ${st.revision} != server ${snap.revision}`);
  const mine = st.doc;
  if (mine.nodes.size !== snap.nodes.length) out.push(`${name}: ${mine.nodes.size} nodes != server ${snap.nodes.length}`);
  if (mine.edges.size !== snap.edges.length) out.push(`${name}: ${mine.edges.size} edges != server ${snap.edges.length}`);
  for (const n of snap.nodes) {
    const m = mine.nodes.get(n.id);
    if (!m) out.push(`${name}: missing node ${n.id}`);
    else if (pickFields(m, NODE_FIELDS) !== pickFields(n, NODE_FIELDS)) out.push(`${name}: node ${n.id} differs`);
  }
  for (const e of snap.edges) {
    const m = mine.edges.get(e.id);
    if (!m) out.push(`${name}: missing edge ${e.id}`);
    else if (pickFields(m, EDGE_FIELDS) !== pickFields(e, EDGE_FIELDS)) out.push(`${name}: edge ${e.id} differs`);
  }
  for (const e of mine.edges.values()) {
    if (!mine.nodes.has(e.source) || !mine.nodes.has(e.target)) out.push(`${name}: dangling edge ${e.id}`);
  }
  return out;
}

interface Client {
  user: FuzzUser;
  engine: SyncEngine;
  sockets: FaultySocket[];
  submitted: Set<string>;
  acked: Set<string>;
  rejected: Map<string, string>;
}

export async function runSeed(cfg: FuzzConfig, seed: number): Promise<SeedResult> {
  const rng: Rng = seededRng(seed);
  const canvasId = await newCanvas(cfg, seed);
  const stats = { dropped: 0, reordered: 0, duplicated: 0, kills: 0, rate_limited: 0, offline_spells: 0 };
  const rejectSamples: string[] = [];
  const clients: Client[] = [];
  for (let i = 0; i < cfg.clients; i++) {
    const user = cfg.users[i % cfg.users.length];
    const sockets: FaultySocket[] = [];
    const acked = new Set<string>();
    const observe = (text: string) => {
      const frame = JSON.parse(text);
      if (frame.type === 'ack') acked.add(frame.client_op_id);
      if (frame.type === 'reject' && frame.error?.code === 'RATE_LIMITED') stats.rate_limited++;
    };
    const factory = (): SocketLike => {
      const base = cfg.wsUrls[Math.floor(rng() * cfg.wsUrls.length)];
      const s = new FaultySocket(`${base}/ws/canvases/${canvasId}/`, { Authorization: `Token ${user.token}`, Origin: cfg.origin }, rng, cfg.faults, stats, observe);
      sockets.push(s);
      return s;
    };
    // Client 1 sends as fast as it can, so the server rate-limits it and order must still hold.
    const engine = new SyncEngine({
      url: 'fuzz', socketFactory: factory, sessionId: `s${seed}c${i}`, random: rng,
      initialBackoffMs: 30, maxBackoffMs: 400, catchUpTimeoutMs: 1_000,
      opsPerSecond: i === 1 ? 1_000 : 40,
    });
    const c: Client = { user, engine, sockets, submitted: new Set(), acked, rejected: new Map() };
    engine.onFrame(() => undefined);
    engine.onNotice((n: Notice) => {
      if (n.kind === 'reject' && n.clientOpId) {
        c.rejected.set(n.clientOpId, n.code ?? '?');
        if (rejectSamples.length < 10 && n.code !== 'FORBIDDEN') rejectSamples.push(`${n.code}: ${n.message} (${n.op?.type})`);
      }
    });
    clients.push(c);
    engine.start();
  }
  const deadline = Date.now() + 10_000;
  while (clients.some((c) => !c.engine.getSnapshot().synced) && Date.now() < deadline) await sleep(20);

  let total = 0;
  const writers = clients.filter((c) => c.user.role !== 'viewer');
  const viewers = clients.filter((c) => c.user.role === 'viewer');
  for (let step = 0; step < cfg.opsPerClient * writers.length; step++) {
    const c = pick(rng, writers);
    const st = c.engine.getSnapshot();
    if (st.synced) {
      const op: Op = randomOp(rng, st.doc);
      c.submitted.add(c.engine.submit(op));
      total++;
    }
    if (viewers.length && rng() < 0.02) {
      const v = pick(rng, viewers);
      v.submitted.add(v.engine.submit(randomOp(rng, v.engine.getSnapshot().doc)));
      total++;
    }
    if (cfg.killEvery > 0 && step % cfg.killEvery === cfg.killEvery - 1) {
      const victim = pick(rng, clients).sockets.at(-1);
      victim?.kill();
    }
    if (rng() < 0.01) {
      // an offline spell: edits keep queueing
      const o = pick(rng, writers);
      o.engine.goOffline();
      stats.offline_spells++;
      setTimeout(() => o.engine.goOnline(), 50 + Math.floor(rng() * 300));
    }
    if (rng() < 0.3) await sleep(Math.floor(rng() * 8));
  }
  for (const c of clients) c.engine.goOnline();

  // Converge: nothing pending anywhere, every client at the server's revision with the same document.
  const t0 = Date.now();
  let diverged: string[] = ['not checked'];
  let convergedMs: number | null = null;
  while (Date.now() - t0 < cfg.convergeTimeoutMs) {
    await sleep(100);
    if (clients.some((c) => c.engine.getSnapshot().pending.length > 0)) continue;
    const snaps = new Map<string, ServerSnapshot>();
    diverged = [];
    for (const c of clients) {
      const role = c.user.role;
      if (!snaps.has(role)) snaps.set(role, await api<ServerSnapshot>(cfg, c.user, `/api/canvases/${canvasId}/snapshot/`));
      diverged.push(...diffDocs(`${c.user.username}#${clients.indexOf(c)}`, c.engine, snaps.get(role)!));
    }
    if (diverged.length === 0) {
      convergedMs = Date.now() - t0;
      break;
    }
  }
  // Lost: an op that was neither refused nor committed (the server's change log names every committed op id).
  const committed = await committedOpIds(cfg, canvasId);
  const pendingLeft = clients.reduce((n, c) => n + c.engine.getSnapshot().pending.length, 0);
  let lost = pendingLeft;
  const rejected: Record<string, number> = {};
  let acked = 0;
  for (const c of clients) {
    for (const id of c.submitted) {
      // committed, or acknowledged as a no-op (a field set to its current value makes no revision)
      if (committed.has(id) || c.acked.has(id)) acked++;
      else if (c.rejected.has(id)) rejected[c.rejected.get(id)!] = (rejected[c.rejected.get(id)!] ?? 0) + 1;
      else if (!c.engine.getSnapshot().pending.some((p) => p.clientOpId === id)) {
        lost++;
        if (rejectSamples.length < 20) rejectSamples.push(`LOST ${id}`);
      }
    }
    c.engine.stop();
  }
  if (rejected.RATE_LIMITED) lost += rejected.RATE_LIMITED; // a rate-limited op must never surface as a final reject
  return { seed, canvasId, ops: total, acked, rejected, lost, diverged: diverged.slice(0, 20), converged_ms: convergedMs, stats, reject_samples: rejectSamples };
}

/** One client alone, far over the rate limit: the server must end exactly where the client's queue says. */
export async function runOrderCheck(cfg: FuzzConfig, seed: number, ops: number): Promise<{ seed: number; ops: number; rate_limited: number; drained_ms: number; diverged: string[] }> {
  const rng = seededRng(seed);
  const canvasId = await newCanvas(cfg, seed);
  const owner = cfg.users.find((u) => u.role === 'owner')!;
  let rateLimited = 0;
  const engine = new SyncEngine({
    // Far over the server's limit on purpose (the shipped defaults stay under it).
    url: 'order', sessionId: `order${seed}`, random: rng, opsPerSecond: 2_000, maxInFlight: 1_000,
    socketFactory: () => {
      return new FaultySocket(`${cfg.wsUrls[0]}/ws/canvases/${canvasId}/`, { Authorization: `Token ${owner.token}`, Origin: cfg.origin }, rng,
        { dropChange: 0, reorder: 0, duplicate: 0 }, { dropped: 0, reordered: 0, duplicated: 0, kills: 0 },
        (text) => {
          if (text.includes('"RATE_LIMITED"')) rateLimited++;
        });
    },
  });
  const refused: string[] = [];
  engine.onNotice((n) => refused.push(`${n.code}: ${n.message}`));
  engine.onFrame(() => undefined);
  engine.start();
  while (!engine.getSnapshot().synced) await sleep(10);
  for (let i = 0; i < ops; i++) {
    const doc = engine.getSnapshot().doc;
    const nodes = [...doc.nodes.keys()];
    // chains that break when reordered: create then link, and many moves of one node
    if (nodes.length < 3 || rng() < 0.2) {
      const id = `00000000-0000-4000-8000-${String(seed).padStart(4, '0')}${String(i).padStart(8, '0')}`;
      engine.submit({ type: 'node.create', node: { id, content: `节点 ${i}`, x: i, y: 0 } });
      if (nodes.length) engine.submit({ type: 'edge.create', edge: { source: id, target: pick(rng, nodes), relation: 'depends_on' } });
    } else {
      engine.submit({ type: 'node.move', id: pick(rng, nodes), x: i, y: -i });
    }
  }
  const intended = engine.getSnapshot().doc;
  const t0 = Date.now();
  while (engine.getSnapshot().pending.length > 0 && Date.now() - t0 < 3 * cfg.convergeTimeoutMs) await sleep(50);
  await sleep(200);
  const snap = await api<ServerSnapshot>(cfg, owner, `/api/canvases/${canvasId}/snapshot/`);
  const diverged: string[] = [];
  if (engine.getSnapshot().pending.length) diverged.push(`${engine.getSnapshot().pending.length} ops still pending`);
  for (const r of refused) diverged.push(`refused: ${r}`);
  const server = new Map<string, CanvasNode>(snap.nodes.map((n: CanvasNode) => [n.id, n]));
  for (const n of intended.nodes.values()) {
    const s = server.get(n.id);
    if (!s) diverged.push(`node ${n.id} missing on the server`);
    else if (s.x !== n.x || s.y !== n.y) diverged.push(`node ${n.id} at ${s.x},${s.y}, intended ${n.x},${n.y}`);
  }
  const intendedEdges = [...intended.edges.values()].map((e) => `${e.source}>${e.target}`).sort();
  const serverEdges = snap.edges.map((e: CanvasEdge) => `${e.source}>${e.target}`).sort();
  if (JSON.stringify(intendedEdges) !== JSON.stringify(serverEdges)) diverged.push(`edges: ${serverEdges.length} on the server, ${intendedEdges.length} intended`);
  engine.stop();
  return { seed, ops, rate_limited: rateLimited, drained_ms: Date.now() - t0, diverged: diverged.slice(0, 20) };
}
