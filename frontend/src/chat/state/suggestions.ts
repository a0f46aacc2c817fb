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

/** The same fact offered for the same node in one conversation (a message repeated, or said again later). */
export function sameFact(a: Suggestion, b: Suggestion): boolean {
  return a.conversation_id === b.conversation_id && a.content.trim() === b.content.trim() && (a.supersede_node_id ?? '') === (b.supersede_node_id ?? '');
}

/** Pending `current` without those the `incoming` ones replace: the same id, or the same fact said again
 * (the server dismisses the older one, so the panel offers it once, from the newest message). */
export function replacedBy(current: Suggestion[], incoming: Suggestion[]): Suggestion[] {
  return current.filter((s) => !incoming.some((n) => n.id === s.id || (n.id > s.id && sameFact(n, s))));
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
