// Captured suggestions: the list kept per user message, and the pending ones the panel offers.

import type { Suggestion } from '../../api/types';

/** `captured` with each suggestion put (or replaced) under its message. */
export function withCaptured(captured: Record<number, Suggestion[]>, list: Suggestion[]): Record<number, Suggestion[]> {
  if (!list.length) return captured;
  const next = { ...captured };
  for (const s of list) {
    const cur = next[s.message_id] ?? [];
    next[s.message_id] = cur.some((x) => x.id === s.id) ? cur.map((x) => (x.id === s.id ? s : x)) : [...cur, s].sort((a, b) => a.id - b.id);
  }
  return next;
}

export function dropCaptured(captured: Record<number, Suggestion[]>, ids: Set<number>): Record<number, Suggestion[]> {
  if (!ids.size) return captured;
  const next: Record<number, Suggestion[]> = {};
  for (const [k, list] of Object.entries(captured)) next[Number(k)] = list.filter((s) => !ids.has(s.id));
  return next;
}

export function markCaptured(captured: Record<number, Suggestion[]>, ids: Set<number>, status: Suggestion['status']): Record<number, Suggestion[]> {
  const next: Record<number, Suggestion[]> = {};
  for (const [k, list] of Object.entries(captured)) next[Number(k)] = list.map((s) => (ids.has(s.id) ? { ...s, status } : s));
  return next;
}

/** Pending suggestions, each fact once (capture can report one fact twice, e.g. as a correction and a value). */
export function pendingOnce(list: Suggestion[]): Suggestion[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const key = `${s.message_id}|${s.content.trim()}|${s.supersede_node_id ?? ''}`;
    if (s.status !== 'pending' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
