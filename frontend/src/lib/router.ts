// A tiny pathname router: the same Django template serves every page.
import { useSyncExternalStore } from 'react';

export type Route =
  | { name: 'list' }
  | { name: 'login'; next: string | null }
  | { name: 'canvas'; id: string }
  | { name: 'notFound' };

export function parseRoute(pathname: string, search = ''): Route {
  const path = pathname.endsWith('/') ? pathname : `${pathname}/`;
  if (path === '/') return { name: 'list' };
  if (path === '/login/') {
    const next = new URLSearchParams(search).get('next');
    return { name: 'login', next: next && next.startsWith('/') && !next.startsWith('//') ? next : null };
  }
  const m = /^\/canvases\/([^/]+)\/$/.exec(path);
  if (m) return { name: 'canvas', id: decodeURIComponent(m[1]) };
  return { name: 'notFound' };
}

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

if (typeof window !== 'undefined') window.addEventListener('popstate', notify);

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

const getLocation = () => window.location.pathname + window.location.search;

export function navigate(to: string, opts: { replace?: boolean } = {}) {
  if (to === getLocation()) return;
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
}

export function useRoute(): Route {
  const loc = useSyncExternalStore(subscribe, getLocation, getLocation);
  const q = loc.indexOf('?');
  return parseRoute(q >= 0 ? loc.slice(0, q) : loc, q >= 0 ? loc.slice(q) : '');
}

/** onClick handler for in-app links that keeps ctrl/cmd-click working. */
export function linkHandler(to: string) {
  return (e: { preventDefault(): void; button?: number; metaKey?: boolean; ctrlKey?: boolean; shiftKey?: boolean }) => {
    if (e.button !== undefined && e.button !== 0) return;
    if (e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    navigate(to);
  };
}
