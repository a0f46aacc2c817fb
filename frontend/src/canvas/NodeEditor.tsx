import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS } from '../api/types';
import { isComposing } from '../lib/format';
import { partsNeeded } from './editing/splitText';

interface Props {
  initial: string;
  placeholder?: string;
  onCommit(value: string): void;
  onCancel(): void;
  /** offered when the text is over the limit: save it as several notes */
  onSplit?(value: string): void;
  /** why this text is back in the editor (a rejected save) */
  message?: string | null;
  /** shown above the text (e.g. "changed underneath") */
  notice?: ReactNode;
}

/**
 * Inline textarea: Enter commits, Shift+Enter adds a line, Escape cancels, blur commits. IME-safe.
 * Text over the limit is never committed (nor lost on blur): it stays here with the offer to split it.
 */
export function NodeEditor({ initial, placeholder, onCommit, onCancel, onSplit, message, notice }: Props) {
  const { t } = useTranslation('editing');
  const [value, setValue] = useState(initial);
  const [blocked, setBlocked] = useState(false);
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

  const over = value.length > LIMITS.contentMax;
  const finish = (commit: boolean) => {
    if (done.current) return;
    if (commit && over) {
      setBlocked(true);
      return;
    }
    done.current = true;
    if (commit) onCommit(value);
    else onCancel();
  };

  const length = value.length;
  return (
    <div className="node-editor-wrap">
      {notice}
      {message && (
        <div className="node-editor-message" role="alert" data-testid="editor-restored">
          {message}
        </div>
      )}
      <textarea
        dir="auto"
        ref={ref}
        className="node-editor nodrag nowheel nopan"
        value={value}
        placeholder={placeholder}
        rows={2}
        data-testid="node-editor"
        aria-label={t('nodeEditor.content')}
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
        <div className={`char-count${over ? ' over' : ''}`} data-testid="editor-char-count">
          {length.toLocaleString()} / {LIMITS.contentMax.toLocaleString()}
        </div>
      )}
      {over && (
        <div className={`node-editor-limit${blocked ? ' blocked' : ''}`} role="alert" data-testid="editor-over-limit">
          <span>
            {t(onSplit ? 'nodeEditor.tooLongSplit' : 'nodeEditor.tooLong', { max: LIMITS.contentMax.toLocaleString() })}
          </span>
          {onSplit && (
            <button
              type="button"
              className="btn btn-small btn-primary"
              data-testid="editor-split"
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => {
                done.current = true;
                onSplit(value);
              }}
            >
              {t('nodeEditor.split', { count: partsNeeded(value, LIMITS.contentMax) })}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
