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

/** The first load of the current user, started once: main.tsx starts it before React renders, App awaits the same. */
export function ensureCurrentUser(): Promise<void> {
  firstLoad ??= loadCurrentUser();
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
