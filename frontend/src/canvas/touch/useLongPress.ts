// A long press by one finger: `onLongPress` fires after `delay` ms with the finger's start point, unless the
// finger moved more than `tolerance` px, lifted, or a second finger came down (a pinch) first.
// The handlers are meant for the *capture* phase (onTouchStartCapture…): React Flow's d3-zoom stops touch
// events from bubbling out of the pane, so bubbling handlers on a wrapper never see them.
import { useCallback, useEffect, useMemo, useRef } from 'react';

export const LONG_PRESS_DELAY = 500;
export const LONG_PRESS_TOLERANCE = 8;

export interface TouchPoint {
  clientX: number;
  clientY: number;
}

/** The parts of a TouchEvent the hook reads (a React or DOM TouchEvent, or a plain object in tests). */
export interface TouchLike {
  touches: ArrayLike<TouchPoint>;
  target: EventTarget | null;
  cancelable?: boolean;
  preventDefault?(): void;
}

export interface LongPressOptions {
  delay?: number;
  tolerance?: number;
  /** where a press may start (e.g. only on the empty pane); default: anywhere */
  accept?(target: EventTarget | null): boolean;
}

export interface LongPressHandlers {
  onTouchStartCapture(e: TouchLike): void;
  onTouchMoveCapture(e: TouchLike): void;
  onTouchEndCapture(e: TouchLike): void;
  onTouchCancelCapture(e: TouchLike): void;
  /** true from the moment a press fired until the next touch starts: lets the caller drop the context menu
   *  or click the browser sends after a long press */
  fired(): boolean;
}

export function useLongPress(
  onLongPress: (point: TouchPoint, target: EventTarget | null) => void,
  { delay = LONG_PRESS_DELAY, tolerance = LONG_PRESS_TOLERANCE, accept }: LongPressOptions = {},
): LongPressHandlers {
  const callback = useRef(onLongPress);
  const acceptRef = useRef(accept);
  useEffect(() => {
    callback.current = onLongPress;
    acceptRef.current = accept;
  });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const start = useRef<TouchPoint | null>(null);
  const firedRef = useRef(false);

  const cancel = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
    start.current = null;
  }, []);

  useEffect(() => cancel, [cancel]);

  return useMemo<LongPressHandlers>(
    () => ({
      onTouchStartCapture(e) {
        cancel();
        firedRef.current = false;
        // a second finger: a pinch, not a press
        if (e.touches.length !== 1) return;
        if (acceptRef.current && !acceptRef.current(e.target)) return;
        const { clientX, clientY } = e.touches[0];
        const point = { clientX, clientY };
        const target = e.target;
        start.current = point;
        timer.current = setTimeout(() => {
          timer.current = null;
          start.current = null;
          firedRef.current = true;
          callback.current(point, target);
        }, delay);
      },
      onTouchMoveCapture(e) {
        const from = start.current;
        if (!from) return;
        if (e.touches.length !== 1) return cancel();
        const { clientX, clientY } = e.touches[0];
        if (Math.hypot(clientX - from.clientX, clientY - from.clientY) > tolerance) cancel();
      },
      onTouchEndCapture(e) {
        cancel();
        // After a press fired, the browser's compatibility mousedown/click would land on whatever the press
        // opened (a draft's editor, which loses focus and closes): a cancelled touchend sends none.
        if (firedRef.current && e.cancelable !== false) e.preventDefault?.();
      },
      onTouchCancelCapture: cancel,
      fired: () => firedRef.current,
    }),
    [cancel, delay, tolerance],
  );
}
