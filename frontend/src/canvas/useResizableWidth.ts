// A side panel width the user drags (pointer or arrow keys) and that is
// remembered in localStorage.
import { useCallback, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';

export const CHAT_WIDTH_KEY = 'canvasweb.chatWidth';
export const CHAT_WIDTH = { min: 280, max: 720, initial: 360 };

function clampWidth(w: number): number {
  const viewportMax = typeof window === 'undefined' ? CHAT_WIDTH.max : Math.max(CHAT_WIDTH.min, Math.round(window.innerWidth * 0.5));
  return Math.round(Math.min(CHAT_WIDTH.max, viewportMax, Math.max(CHAT_WIDTH.min, w)));
}

function loadWidth(key: string): number {
  try {
    const n = Number(window.localStorage.getItem(key));
    if (Number.isFinite(n) && n > 0) return clampWidth(n);
  } catch {
    /* storage blocked */
  }
  return clampWidth(CHAT_WIDTH.initial);
}

function saveWidth(key: string, w: number) {
  try {
    window.localStorage.setItem(key, String(w));
  } catch {
    /* storage blocked */
  }
}

/** `side` is where the panel sits: dragging away from it makes the panel wider. */
export function useResizableWidth(key: string = CHAT_WIDTH_KEY, side: 'left' | 'right' = 'left') {
  const [width, setWidth] = useState(() => loadWidth(key));
  const drag = useRef<{ startX: number; startW: number } | null>(null);
  const latest = useRef(width);
  latest.current = width;

  const apply = useCallback(
    (w: number, persist: boolean) => {
      const next = clampWidth(w);
      setWidth(next);
      if (persist) saveWidth(key, next);
    },
    [key],
  );

  const handleProps = {
    role: 'separator' as const,
    'aria-orientation': 'vertical' as const,
    'aria-valuenow': width,
    'aria-valuemin': CHAT_WIDTH.min,
    'aria-valuemax': CHAT_WIDTH.max,
    tabIndex: 0,
    onPointerDown: (e: PointerEvent<HTMLElement>) => {
      e.preventDefault();
      e.currentTarget.setPointerCapture?.(e.pointerId);
      drag.current = { startX: e.clientX, startW: latest.current };
    },
    onPointerMove: (e: PointerEvent<HTMLElement>) => {
      if (!drag.current) return;
      const dx = e.clientX - drag.current.startX;
      apply(drag.current.startW + (side === 'left' ? dx : -dx), false);
    },
    onPointerUp: (e: PointerEvent<HTMLElement>) => {
      if (!drag.current) return;
      e.currentTarget.releasePointerCapture?.(e.pointerId);
      drag.current = null;
      saveWidth(key, latest.current);
    },
    onKeyDown: (e: KeyboardEvent<HTMLElement>) => {
      const step = e.shiftKey ? 64 : 16;
      const grow = side === 'left' ? 'ArrowRight' : 'ArrowLeft';
      const shrink = side === 'left' ? 'ArrowLeft' : 'ArrowRight';
      if (e.key === grow) apply(latest.current + step, true);
      else if (e.key === shrink) apply(latest.current - step, true);
      else return;
      e.preventDefault();
    },
  };
  return { width, handleProps };
}
