// Current-user store.
import { useSyncExternalStore } from 'react';
import type { UserRef } from '../api/types';
import { api, ApiError } from '../api/client';

export type AuthState =
  | { status: 'loading'; user: null }
  | { status: 'anonymous'; user: null }
  | { status: 'authenticated'; user: UserRef }
  | { status: 'error'; user: null; message: string };

let state: AuthState = { status: 'loading', user: null };
const listeners = new Set<() => void>();
function set(next: AuthState) {
  state = next;
  listeners.forEach((l) => l());
}

export async function loadCurrentUser(): Promise<void> {
  try {
    const me = await api.me();
    set(me && typeof me.id === 'number' ? { status: 'authenticated', user: me } : { status: 'anonymous', user: null });
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) set({ status: 'anonymous', user: null });
    else set({ status: 'error', user: null, message: err instanceof Error ? err.message : String(err) });
  }
}

let firstLoad: Promise<void> | null = null;

/** The user the page shell was rendered for (templates/app.html): a user, null when logged out, or
 * undefined when the page has no such element (then the API is asked). */
export function embeddedUser(doc: Document = document): UserRef | null | undefined {
  const el = doc.getElementById('canvasweb-user');
  if (!el?.textContent) return undefined;
  try {
    const value: unknown = JSON.parse(el.textContent);
    if (value === null) return null;
    const user = value as Partial<UserRef>;
    return typeof user.id === 'number' && typeof user.username === 'string' ? { id: user.id, username: user.username } : undefined;
  } catch {
    return undefined;
  }
}

/** The first load of the current user, started once: main.tsx starts it before React renders, App awaits the same.
 * It takes the user from the page shell when there is one, so a logged-out visit makes no request that fails. */
export function ensureCurrentUser(): Promise<void> {
  if (firstLoad) return firstLoad;
  const embedded = embeddedUser();
  if (embedded !== undefined) {
    setCurrentUser(embedded);
    firstLoad = Promise.resolve();
  } else {
    firstLoad = loadCurrentUser();
  }
  return firstLoad;
}

export function setCurrentUser(user: UserRef | null) {
  set(user ? { status: 'authenticated', user } : { status: 'anonymous', user: null });
}

export function useAuth(): AuthState {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
    () => state,
  );
}
