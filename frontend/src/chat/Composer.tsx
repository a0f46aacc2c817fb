// The question input: Enter sends, Shift+Enter is a new line, Esc stops a streaming reply; the
// context-preview switch, the character count and Send / Stop.
import { useLayoutEffect, type KeyboardEvent, type RefObject } from 'react';
import { SendIcon, StopIcon } from '../components/Icons';
import { isComposing } from '../lib/format';
import { charCount, MAX_QUESTION_CHARS } from './chatState';

export function Composer({
  inputRef,
  draft,
  setDraft,
  online,
  busy,
  pending,
  streaming,
  previewOn,
  onTogglePreview,
  onSend,
  onStop,
}: {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  draft: string;
  setDraft(text: string): void;
  online: boolean;
  busy: boolean;
  pending: boolean;
  streaming: boolean;
  previewOn: boolean;
  onTogglePreview(on: boolean): void;
  onSend(): void;
  onStop(): void;
}) {
  const count = charCount(draft);
  const tooLong = count > MAX_QUESTION_CHARS;

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !isComposing(e)) {
      e.preventDefault();
      if (!tooLong) onSend();
    } else if (e.key === 'Escape' && streaming) {
      onStop();
    }
  };

  // Grow the input with its content (up to a limit).
  useLayoutEffect(() => {
    const el = inputRef.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(180, el.scrollHeight + 2)}px`;
  }, [draft, inputRef]);

  return (
    <div className={`chat-composer${tooLong ? ' over' : ''}`}>
      <textarea
        ref={inputRef}
        value={draft}
        rows={2}
        dir="auto"
        placeholder={online ? 'Ask about the canvas… (Enter to send, Shift+Enter for a new line)' : 'Offline — reconnecting…'}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={onKeyDown}
        aria-label="Message"
        data-testid="chat-input"
      />
      <div className="composer-row">
        <label className="preview-toggle" title="Highlight what the next question would send, as you pan and type">
          <input type="checkbox" className="switch" checked={previewOn} onChange={(e) => onTogglePreview(e.target.checked)} data-testid="preview-toggle" />
          <span>Context preview</span>
        </label>
        <span className={`char-count inline${tooLong ? ' over' : ''}`} data-testid="chat-char-count" title="Questions are limited to 8,000 characters">
          {count.toLocaleString()} / {MAX_QUESTION_CHARS.toLocaleString()}
        </span>
        {streaming ? (
          <button className="btn btn-small btn-danger-ghost" onClick={onStop} data-testid="chat-stop" title="Stop the reply (Esc)">
            <StopIcon size={13} /> Stop
          </button>
        ) : (
          <button
            className="btn btn-small btn-primary"
            onClick={onSend}
            disabled={!draft.trim() || busy || tooLong || !online}
            data-testid="chat-send"
            title={tooLong ? `At most ${MAX_QUESTION_CHARS.toLocaleString()} characters` : 'Send (Enter)'}
          >
            <SendIcon size={13} /> {pending ? 'Sending…' : 'Send'}
          </button>
        )}
      </div>
      {tooLong && (
        <div className="field-hint error" data-testid="chat-too-long">
          The question is {count.toLocaleString()} characters; the limit is {MAX_QUESTION_CHARS.toLocaleString()}.
        </div>
      )}
    </div>
  );
}
