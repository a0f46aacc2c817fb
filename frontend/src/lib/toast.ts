// Global toast queue (errors from the server, rejects, info).
import { useSyncExternalStore } from 'react';

export type ToastKind = 'error' | 'info' | 'success';
export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  title?: string;
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((l) => l());

export function pushToast(kind: ToastKind, message: string, opts: { title?: string; timeoutMs?: number } = {}): number {
  const id = nextId++;
  // Collapse identical messages that arrive in a burst.
  toasts = [...toasts.filter((t) => !(t.message === message && t.kind === kind)), { id, kind, message, title: opts.title }].slice(-5);
  emit();
  const timeout = opts.timeoutMs ?? (kind === 'error' ? 7000 : 3500);
  if (timeout > 0) setTimeout(() => dismissToast(id), timeout);
  return id;
}

export function dismissToast(id: number) {
  const before = toasts.length;
  toasts = toasts.filter((t) => t.id !== id);
  if (toasts.length !== before) emit();
}

export const toast = {
  error: (message: string, title?: string) => pushToast('error', message, { title }),
  info: (message: string, title?: string) => pushToast('info', message, { title }),
  success: (message: string, title?: string) => pushToast('success', message, { title }),
};

export function useToasts(): Toast[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => toasts,
    () => toasts,
  );
}
