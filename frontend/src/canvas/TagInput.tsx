import { useState } from 'react';
import { LIMITS } from '../api/types';
import { XIcon } from '../components/Icons';
import { isComposing } from '../lib/format';
import { useTranslation } from 'react-i18next';

interface Props {
  tags: string[];
  onChange(tags: string[]): void;
  readOnly?: boolean;
}

const SEPARATORS = new Set([',', '，', '、', ';', '；']);

/** Chip input for tags. Enter, Tab or a comma (also the Chinese ，、) adds; Backspace on empty removes. */
export function TagInput({ tags, onChange, readOnly }: Props) {
  const { t: tr } = useTranslation('canvas');
  const [draft, setDraft] = useState('');
  const [hint, setHint] = useState<string | null>(null);

  const add = (raw: string) => {
    const parts = raw
      .split(/[,，、;；]/)
      .map((t) => t.trim().replace(/^#/, ''))
      .filter(Boolean);
    if (parts.length === 0) return;
    const next = [...tags];
    for (const t of parts) {
      if (Array.from(t).length > LIMITS.tagMaxLen) {
        setHint(tr('tags.tooLong', { max: LIMITS.tagMaxLen }));
        return;
      }
      if (next.includes(t)) continue;
      if (next.length >= LIMITS.tagsMax) {
        setHint(tr('tags.tooMany', { max: LIMITS.tagsMax }));
        break;
      }
      next.push(t);
    }
    setDraft('');
    if (next.length !== tags.length) onChange(next);
  };

  return (
    <div className={`tag-input${readOnly ? ' readonly' : ''}`} data-testid="inspector-tags">
      {tags.map((t) => (
        <span className="tag-chip" key={t}>
          #{t}
          {!readOnly && (
            <button type="button" className="tag-remove" aria-label={tr('tags.remove', { tag: t })} onClick={() => onChange(tags.filter((x) => x !== t))}>
              <XIcon size={10} />
            </button>
          )}
        </span>
      ))}
      {!readOnly && (
        <input
          value={draft}
          placeholder={tags.length ? tr('tags.add') : tr('tags.addMany')}
          aria-label={tr('tags.add')}
          data-testid="tag-input"
          onChange={(e) => {
            setHint(null);
            const v = e.target.value;
            if (v && SEPARATORS.has(v[v.length - 1])) add(v);
            else setDraft(v);
          }}
          onKeyDown={(e) => {
            if (isComposing(e)) return;
            if ((e.key === 'Enter' || e.key === 'Tab') && draft.trim()) {
              e.preventDefault();
              add(draft);
            } else if (e.key === 'Backspace' && !draft && tags.length) {
              onChange(tags.slice(0, -1));
            }
          }}
          onBlur={() => draft.trim() && add(draft)}
        />
      )}
      {readOnly && tags.length === 0 && <span className="muted">{tr('tags.none')}</span>}
      {hint && <div className="field-hint error">{hint}</div>}
    </div>
  );
}
