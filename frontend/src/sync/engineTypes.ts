// The public types of the sync engine (re-exported by engine.ts, which the rest of the app imports).

import type { CanvasNode, Op, PresenceActivity, PresenceCursor, PresenceViewport, Role, UserRef } from '../api/types';
import type { Doc } from './apply';

export type ConnectionStatus = 'connecting' | 'online' | 'reconnecting' | 'offline';

/** The subset of the browser WebSocket the engine uses (so tests can fake it). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

export interface PendingOp {
  clientOpId: string;
  op: Op;
  /** revision the server committed it at (ack arrived before we could apply it) */
  ackedRevision: number | null;
  /** rate-limit retries so far */
  retries: number;
  /** sent on the current connection and not answered yet */
  sent?: boolean;
  /** rejected (not RATE_LIMITED) while an earlier op waited for its resend: resent once more in order */
  orderRetries?: number;
}

/** An unacknowledged op as kept across page loads (see PendingStore). */
export interface StoredOp {
  clientOpId: string;
  op: Op;
}

/**
 * Where the unacknowledged ops survive a reload or a closed tab (IndexedDB in
 * the browser, see pendingStore.ts). `userId` guards against replaying one
 * user's edits under another login.
 */
export interface PendingStore {
  load(): Promise<{ userId: number | string | null; ops: StoredOp[] } | null>;
  save(state: { userId: number | string | null; ops: StoredOp[] }): void;
}

export interface PresencePeer {
  connectionId: string;
  user: UserRef;
  color: string;
  viewport: PresenceViewport | null;
  cursor: PresenceCursor | null;
  /** node this person has an editor open on */
  editing?: string | null;
  /** node this person is dragging, and where it is now */
  dragging?: PresenceActivity['dragging'];
  updatedAt: number;
}

export interface CanvasInfo {
  id: number | string;
  name: string;
  revision?: number;
  [key: string]: unknown;
}

/** A decoded server frame the engine passes through (see onFrame). */
export interface ServerFrame {
  type: string;
  [key: string]: unknown;
}

/** A decoded JSON object from the socket; its fields are checked where they are used. */
export type WireFrame = Record<string, unknown>;


export type NoticeKind = 'reject' | 'error' | 'revoked' | 'too-large';

export interface Notice {
  kind: NoticeKind;
  message: string;
  code?: string;
  field?: string | null;
  clientOpId?: string;
  op?: Op;
  /** CONFLICT on a stale base_version: the node as the server has it now */
  current?: CanvasNode;
}

export interface EngineState {
  status: ConnectionStatus;
  /** confirmed server revision R (null before the first snapshot / after resync) */
  revision: number | null;
  /** a snapshot has been received at least once */
  synced: boolean;
  /** displayed document: server state + pending ops */
  doc: Doc;
  /** confirmed server document */
  server: Doc;
  pending: readonly PendingOp[];
  /** node/edge ids with unconfirmed local changes */
  pendingIds: ReadonlySet<string>;
  role: Role | null;
  user: UserRef | null;
  canvas: CanvasInfo | null;
  connectionId: string | null;
  /** membership revoked (close 4403): no reconnects */
  revoked: boolean;
  /** goOffline() was called */
  forcedOffline: boolean;
  /** the browser reports no network (navigator.onLine false): offline, no reconnect attempts */
  networkDown: boolean;
  /** when the next reconnect attempt is due (epoch ms) */
  nextRetryAt: number | null;
}
