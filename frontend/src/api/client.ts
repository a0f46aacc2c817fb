// Small fetch wrapper for the Django REST API: JSON, session cookie, CSRF.

import type {
  ActivityPage,
  AuditFilters,
  AuditPage,
  ChainReport,
  AgentPolicyValue,
  ApiErrorBody,
  CanvasSummary,
  ChatMessage,
  Conversation,
  ContextReport,
  HistoryEntry,
  ImportResult,
  LLMStatus,
  Member,
  ModelRequestRecord,
  NodeTimeline,
  Op,
  Proposal,
  PresenceViewport,
  Role,
  Sensitivity,
  Snapshot,
  Suggestion,
  UndoResult,
  UndoStatus,
  UserRef,
} from './types';
import { currentLanguage } from '../i18n';
import { localizedApiMessage } from '../i18n/errors';
import i18n from 'i18next';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | null;
  /** the whole error object (e.g. `problems` for a rejected import) */
  readonly body: Partial<ApiErrorBody> & Record<string, unknown>;
  constructor(status: number, body: Partial<ApiErrorBody> & Record<string, unknown>) {
    super(body.message || i18n.t('errors:requestFailed', { status }));
    this.name = 'ApiError';
    this.status = status;
    this.code = body.code || (status === 0 ? 'NETWORK' : 'ERROR');
    this.field = body.field ?? null;
    this.body = body;
  }
  get isAuth(): boolean {
    return this.status === 401 || this.code === 'UNAUTHENTICATED' || (this.status === 403 && this.code === 'NOT_AUTHENTICATED');
  }
}

let memoryToken: string | null = null;

function readCookie(name: string): string | null {
  if (typeof document === 'undefined') return null;
  for (const part of document.cookie ? document.cookie.split(';') : []) {
    const [k, ...rest] = part.trim().split('=');
    if (k === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

export function csrfToken(): string | null {
  const cookie = readCookie('csrftoken');
  if (cookie) return cookie;
  if (memoryToken) return memoryToken;
  const meta = typeof document !== 'undefined' ? document.querySelector('meta[name="csrf-token"]') : null;
  const value = meta?.getAttribute('content');
  return value && value !== 'NOTPROVIDED' && !value.includes('{{') ? value : null;
}

export async function refreshCsrf(): Promise<string | null> {
  try {
    const res = await fetch('/api/auth/csrf/', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (res.ok) {
      const data = (await res.json()) as { csrf_token?: string };
      if (data.csrf_token) memoryToken = data.csrf_token;
    }
  } catch {
    /* offline: the request itself will report the error */
  }
  return csrfToken();
}

function parseError(status: number, data: unknown): ApiError {
  const d = data as { error?: Partial<ApiErrorBody> & Record<string, unknown>; detail?: string } | null;
  if (d && d.error && typeof d.error === 'object') return new ApiError(status, d.error);
  if (d && typeof d.detail === 'string') {
    const code = status === 401 ? 'UNAUTHENTICATED' : status === 403 ? 'FORBIDDEN' : status === 404 ? 'NOT_FOUND' : 'ERROR';
    return new ApiError(status, { code, message: d.detail });
  }
  // A body without our error shape (a proxy's page, an empty 502): the words for the status.
  const fallback: Record<number, string> = { 400: 'INVALID', 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT', 429: 'RATE_LIMITED' };
  const code = fallback[status];
  return new ApiError(status, { code: status === 401 ? 'UNAUTHENTICATED' : 'ERROR', message: code ? i18n.t(`errors:${code}`) : i18n.t('errors:serverError', { status }) });
}

export async function request<T>(method: string, url: string, body?: unknown, retried = false): Promise<T> {
  const unsafe = !['GET', 'HEAD', 'OPTIONS'].includes(method);
  // The server translates error messages (never codes) per Accept-Language.
  const headers: Record<string, string> = { Accept: 'application/json', 'Accept-Language': currentLanguage() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (unsafe) {
    const token = csrfToken() ?? (await refreshCsrf());
    if (token) headers['X-CSRFToken'] = token;
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, { code: 'NETWORK', message: i18n.t('errors:NETWORK') });
  }
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const err = parseError(res.status, data);
    if (unsafe && !retried && res.status === 403 && /csrf/i.test(err.message)) {
      memoryToken = null;
      await refreshCsrf();
      return request<T>(method, url, body, true);
    }
    throw err;
  }
  return data as T;
}

const enc = encodeURIComponent;

export const api = {
  csrf: () => refreshCsrf(),
  me: () => request<UserRef>('GET', '/api/auth/me/'),
  login: async (username: string, password: string) => {
    await refreshCsrf();
    const res = await request<{ user: UserRef }>('POST', '/api/auth/login/', { username, password });
    memoryToken = null; // Django rotates the token on login
    await refreshCsrf();
    return res.user;
  },
  logout: () => request<unknown>('POST', '/api/auth/logout/', {}),

  listCanvases: () => request<CanvasSummary[]>('GET', '/api/canvases/'),
  getCanvas: (id: number | string) => request<CanvasSummary>('GET', `/api/canvases/${enc(String(id))}/`),
  createCanvas: (name: string, description = '') => request<CanvasSummary>('POST', '/api/canvases/', { name, description }),
  updateCanvas: (id: number | string, fields: { name?: string; description?: string }) =>
    request<CanvasSummary>('PATCH', `/api/canvases/${enc(String(id))}/`, fields),
  deleteCanvas: (id: number | string) => request<unknown>('DELETE', `/api/canvases/${enc(String(id))}/`),

  listMembers: (id: number | string) => request<Member[]>('GET', `/api/canvases/${enc(String(id))}/members/`),
  addMember: (id: number | string, username: string, role: Role) =>
    request<Member>('POST', `/api/canvases/${enc(String(id))}/members/`, { username, role }),
  updateMember: (id: number | string, userId: number, role: Role) =>
    request<Member>('PATCH', `/api/canvases/${enc(String(id))}/members/${userId}/`, { role }),
  removeMember: (id: number | string, userId: number) =>
    request<unknown>('DELETE', `/api/canvases/${enc(String(id))}/members/${userId}/`),

  snapshot: (id: number | string) => request<Snapshot>('GET', `/api/canvases/${enc(String(id))}/snapshot/`),
  postOp: (id: number | string, op: Op, clientOpId?: string) =>
    request<{ revision: number; duplicate: boolean; changes: unknown[] }>('POST', `/api/canvases/${enc(String(id))}/ops/`, {
      client_op_id: clientOpId,
      op,
    }),
  nodeHistory: (id: number | string, nodeId: string) =>
    request<HistoryEntry[]>('GET', `/api/canvases/${enc(String(id))}/nodes/${enc(nodeId)}/history/`),
  setAgentPolicy: (id: number | string, policy: Partial<AgentPolicyValue>) =>
    request<CanvasSummary>('PATCH', `/api/canvases/${enc(String(id))}/`, { agent_policy: policy }),

  // chat
  llmStatus: () => request<LLMStatus>('GET', '/api/llm/'),
  conversations: (canvasId: number | string) =>
    request<Conversation[]>('GET', `/api/canvases/${enc(String(canvasId))}/conversations/`),
  createConversation: (canvasId: number | string, title = '') =>
    request<Conversation>('POST', `/api/canvases/${enc(String(canvasId))}/conversations/`, title ? { title } : {}),
  messages: (conversationId: number) => request<ChatMessage[]>('GET', `/api/conversations/${conversationId}/messages/`),
  modelRequest: (id: number) => request<ModelRequestRecord>('GET', `/api/model-requests/${id}/`),
  suggestions: (conversationId: number) => request<Suggestion[]>('GET', `/api/conversations/${conversationId}/suggestions/`),
  acceptSuggestion: (id: number, x: number, y: number, supersede: boolean, sensitivity?: Sensitivity, confirm = false) =>
    request<{ suggestion: Suggestion; revision: number }>('POST', `/api/suggestions/${id}/accept/`, {
      x,
      y,
      supersede,
      ...(sensitivity ? { sensitivity } : {}),
      ...(confirm ? { confirm: true } : {}),
    }),
  dismissSuggestion: (id: number) => request<{ suggestion: Suggestion }>('POST', `/api/suggestions/${id}/dismiss/`, {}),
  contextPreview: (canvasId: number | string, body: { text: string; conversation_id: number | null; viewport: PresenceViewport | null }) =>
    request<ContextReport>('POST', `/api/canvases/${enc(String(canvasId))}/context-preview/`, body),

  // agent proposals
  proposals: (canvasId: number | string, status?: string) =>
    request<Proposal[]>('GET', `/api/canvases/${enc(String(canvasId))}/proposals/${status ? `?status=${enc(status)}` : ''}`),
  approveProposal: (id: number, force = false) =>
    request<{ proposal: Proposal; revision: number | null }>('POST', `/api/proposals/${id}/approve/`, force ? { force: true } : {}),
  rejectProposal: (id: number) => request<{ proposal: Proposal; revision: null }>('POST', `/api/proposals/${id}/reject/`, {}),

  // history
  nodeTimeline: (canvasId: number | string, nodeId: string, actorKind?: string) =>
    request<NodeTimeline>(
      'GET',
      `/api/canvases/${enc(String(canvasId))}/nodes/${enc(nodeId)}/timeline/${actorKind ? `?actor_kind=${enc(actorKind)}` : ''}`,
    ),
  revertNode: (canvasId: number | string, nodeId: string, revision: number) =>
    request<{ reverted_to: number; node_id: string; recreated: boolean; fields: string[]; revision: number }>(
      'POST',
      `/api/canvases/${enc(String(canvasId))}/nodes/${enc(nodeId)}/revert/`,
      { revision },
    ),
  activity: (canvasId: number | string, opts: { limit?: number; before?: number | null; actorKind?: string } = {}) => {
    const q = new URLSearchParams();
    if (opts.limit) q.set('limit', String(opts.limit));
    if (opts.before) q.set('before', String(opts.before));
    if (opts.actorKind) q.set('actor_kind', opts.actorKind);
    const qs = q.toString();
    return request<ActivityPage>('GET', `/api/canvases/${enc(String(canvasId))}/activity/${qs ? `?${qs}` : ''}`);
  },
  undoStatus: (canvasId: number | string) => request<UndoStatus>('GET', `/api/canvases/${enc(String(canvasId))}/undo/`),
  undo: (canvasId: number | string) => request<UndoResult>('POST', `/api/canvases/${enc(String(canvasId))}/undo/`),
  redo: (canvasId: number | string) => request<UndoResult>('POST', `/api/canvases/${enc(String(canvasId))}/redo/`),
  exportUrl: (canvasId: number | string, includeSecret = false) =>
    `/api/canvases/${enc(String(canvasId))}/export.canvas${includeSecret ? '?include_secret=true' : ''}`,
  audit: (canvasId: number | string, f: AuditFilters = {}) => {
    const q = new URLSearchParams();
    if (f.limit) q.set('limit', String(f.limit));
    if (f.before) q.set('before', String(f.before));
    if (f.actor) q.set('actor', String(f.actor));
    if (f.actorKind) q.set('actor_kind', f.actorKind);
    if (f.nodeId) q.set('node_id', f.nodeId);
    if (f.since) q.set('since', f.since);
    if (f.until) q.set('until', f.until);
    const qs = q.toString();
    return request<AuditPage>('GET', `/api/canvases/${enc(String(canvasId))}/audit/${qs ? `?${qs}` : ''}`);
  },
  verifyAudit: (canvasId: number | string) =>
    request<ChainReport>('POST', `/api/canvases/${enc(String(canvasId))}/audit/verify/`),
  importCanvas: (document: unknown, name?: string) =>
    request<ImportResult>('POST', `/api/canvases/import/${name ? `?name=${enc(name)}` : ''}`, document),
};

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return localizedApiMessage(err.code, err.message);
  if (err instanceof Error) return err.message;
  return String(err);
}
