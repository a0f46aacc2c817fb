import { useLayoutEffect, useRef, useState } from 'react';
import { LIMITS } from '../api/types';
import { isComposing } from '../lib/format';

interface Props {
  initial: string;
  placeholder?: string;
  onCommit(value: string): void;
  onCancel(): void;
}

/** Inline textarea: Enter commits, Shift+Enter adds a line, Escape cancels, blur commits. IME-safe. */
export function NodeEditor({ initial, placeholder, onCommit, onCancel }: Props) {
  const [value, setValue] = useState(initial);
  const ref = useRef<HTMLTextAreaElement>(null);
  const done = useRef(false);

  const autosize = () => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 360)}px`;
  };

  useLayoutEffect(() => {
    autosize();
    // A node React Flow has not measured yet is still visibility:hidden and
    // cannot take focus, so retry for a few frames.
    let frames = 0;
    let raf = 0;
    const tryFocus = () => {
      const el = ref.current;
      if (!el || done.current) return;
      if (document.activeElement !== el) {
        el.focus({ preventScroll: true });
        el.setSelectionRange(el.value.length, el.value.length);
      }
      if (document.activeElement !== el && frames++ < 30) raf = requestAnimationFrame(tryFocus);
    };
    tryFocus();
    return () => cancelAnimationFrame(raf);
  }, []);

  const finish = (commit: boolean) => {
    if (done.current) return;
    done.current = true;
    if (commit) onCommit(value);
    else onCancel();
  };

  const length = value.length;
  return (
    <div className="node-editor-wrap">
      <textarea
        ref={ref}
        className="node-editor nodrag nowheel nopan"
        value={value}
        placeholder={placeholder}
        rows={2}
        data-testid="node-editor"
        aria-label="Node content"
        onChange={(e) => {
          setValue(e.target.value);
          autosize();
        }}
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === 'Enter' && !e.shiftKey && !isComposing(e)) {
            e.preventDefault();
            finish(true);
          } else if (e.key === 'Escape' && !isComposing(e)) {
            e.preventDefault();
            finish(false);
          }
        }}
        onBlur={() => finish(true)}
      />
      {length > LIMITS.contentMax * 0.9 && (
        <div className={`char-count${length > LIMITS.contentMax ? ' over' : ''}`}>
          {length.toLocaleString()} / {LIMITS.contentMax.toLocaleString()}
        </div>
      )}
    </div>
  );
}
