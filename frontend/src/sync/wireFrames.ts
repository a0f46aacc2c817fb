// The server frames the engine reads itself: unchecked wire data, checked where it is used.

import type { CanvasNode, EntityChange, PresenceActivity, PresenceCursor, PresenceViewport, Role, UserRef } from '../api/types';
import type { CanvasInfo, ServerFrame, WireFrame } from './engineTypes';

/** The fields of a `welcome` frame the engine reads (unchecked wire data). */
export interface WelcomeFrame {
  role?: Role | null;
  user?: UserRef | null;
  canvas?: CanvasInfo | null;
  connection_id?: string | number | null;
}

/** The fields of a `presence` frame the engine reads (unchecked wire data). */
export interface PresenceFrame {
  connection_id?: string | number | null;
  user?: UserRef | null;
  color?: unknown;
  viewport?: PresenceViewport | null;
  cursor?: PresenceCursor | null;
  editing?: unknown;
  dragging?: PresenceActivity['dragging'];
}

/** An `ack` frame: the op with this client_op_id committed at `revision`. */
export interface AckFrame {
  client_op_id: string;
  revision: number;
  duplicate?: boolean;
  changes?: EntityChange[];
}

/** A `reject` frame: the op with this client_op_id was not applied. */
export interface RejectFrame {
  client_op_id: string;
  error?: { code?: string; message?: string; field?: string | null; retry_after_ms?: number; current?: CanvasNode };
}

/** An `error` frame; with a request_id it answers a request and goes to frame listeners. */
export interface ErrorFrame {
  request_id?: unknown;
  error?: { code?: string; message?: string; field?: string | null } | null;
}

/** A wire object with a string `type`: a frame the engine can pass to frame listeners. */
export function isServerFrame(msg: WireFrame): msg is ServerFrame {
  return typeof msg.type === 'string';
}
