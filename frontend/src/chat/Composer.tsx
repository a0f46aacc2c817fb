// The question input: Enter sends, Shift+Enter is a new line, Esc stops a reply (also one still being prepared); the
// context-preview switch, the character count and Send / Stop.
import { useLayoutEffect, type KeyboardEvent, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { SendIcon, StopIcon } from '../components/Icons';
import { formatNumber as num } from '../i18n/format';
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
  const { t } = useTranslation('chat');
  const count = charCount(draft);
  const tooLong = count > MAX_QUESTION_CHARS;

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !isComposing(e)) {
      e.preventDefault();
      if (!tooLong) onSend();
    } else if (e.key === 'Escape' && (streaming || pending)) {
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
        placeholder={online ? t('placeholder') : t('placeholderOffline')}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={onKeyDown}
        aria-label={t('message')}
        data-testid="chat-input"
      />
      <div className="composer-row">
        <label className="preview-toggle" title={t('previewHint')}>
          <input type="checkbox" className="switch" checked={previewOn} onChange={(e) => onTogglePreview(e.target.checked)} data-testid="preview-toggle" />
          <span>{t('preview')}</span>
        </label>
        <span className={`char-count inline${tooLong ? ' over' : ''}`} data-testid="chat-char-count" title={t('limitHint', { limit: num(MAX_QUESTION_CHARS) })}>
          {num(count)} / {num(MAX_QUESTION_CHARS)}
        </span>
        {streaming || pending ? (
          <button className="btn btn-small btn-danger-ghost" onClick={onStop} data-testid="chat-stop" title={t('stopHint')}>
            <StopIcon size={13} /> {t('stop')}
          </button>
        ) : (
          <button
            className="btn btn-small btn-primary"
            onClick={onSend}
            disabled={!draft.trim() || busy || tooLong || !online}
            data-testid="chat-send"
            title={tooLong ? t('atMost', { limit: num(MAX_QUESTION_CHARS) }) : t('sendHint')}
          >
            <SendIcon size={13} /> {pending ? t('sending') : t('send')}
          </button>
        )}
      </div>
      {tooLong && (
        <div className="field-hint error" data-testid="chat-too-long">
          {t('tooLong', { count, chars: num(count), limit: num(MAX_QUESTION_CHARS) })}
        </div>
      )}
    </div>
  );
}
