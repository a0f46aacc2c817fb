import { useEffect, useRef, type ReactNode } from 'react';

interface Props {
  /** position inside the positioned parent (px) */
  x: number;
  y: number;
  onClose(): void;
  children: ReactNode;
  testId?: string;
  label: string;
}

/** A small floating panel; closes on Escape or a click outside. */
export function Popover({ x: rawX, y: rawY, onClose, children, testId, label }: Props) {
  // Open just below-right of the pointer so the clicked label stays visible.
  const x = rawX + 12;
  const y = rawY + 14;
  const ref = useRef<HTMLDivElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        closeRef.current();
      }
    };
    const onDown = (e: PointerEvent) => {
      if (ref.current && !ref.current.contains(e.target as globalThis.Node)) closeRef.current();
    };
    window.addEventListener('keydown', onKey, true);
    // Delay so the click that opened the popover does not close it.
    const t = setTimeout(() => window.addEventListener('pointerdown', onDown, true), 0);
    return () => {
      clearTimeout(t);
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('pointerdown', onDown, true);
    };
  }, []);

  // Keep the panel inside its container.
  useEffect(() => {
    const el = ref.current;
    const parent = el?.offsetParent as HTMLElement | null;
    if (!el || !parent) return;
    const maxX = parent.clientWidth - el.offsetWidth - 8;
    const maxY = parent.clientHeight - el.offsetHeight - 8;
    el.style.left = `${Math.max(8, Math.min(x, maxX))}px`;
    el.style.top = `${Math.max(8, Math.min(y, maxY))}px`;
  }, [x, y]);

  return (
    <div ref={ref} className="popover" style={{ left: x, top: y }} role="dialog" aria-label={label} data-testid={testId}>
      {children}
    </div>
  );
}
