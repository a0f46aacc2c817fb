// The inspector's content field. Like the inline editor it sends the version
// the edit started from, so a stale save becomes a conflict choice, and text
// over the limit is kept here instead of being sent.
import { useEffect, useRef, useState } from 'react';
import { LIMITS, type CanvasNode } from '../../api/types';
import { isComposing } from '../../lib/format';
import { useCanvasActions } from '../context';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../i18n/format';

export function ContentField({ node, readOnly }: { node: CanvasNode; readOnly: boolean }) {
  const { t } = useTranslation('canvas');
  const { submit, engine } = useCanvasActions();
  const [value, setValue] = useState(node.content);
  const focused = useRef(false);
  // Only text the user typed is committed: a focused but untouched field must not
  // write its stale value back over someone else's newer edit on blur.
  const dirty = useRef(false);
  const base = useRef<number | null>(null);
  useEffect(() => {
    if (!focused.current || !dirty.current) setValue(node.content);
  }, [node.content]);
  const over = value.length > LIMITS.contentMax;
  const commit = () => {
    if (over) return; // kept in the field with the message below
    if (dirty.current && value !== node.content) {
      const v = base.current ?? engine.getSnapshot().server.nodes.get(node.id)?.version ?? null;
      submit({ type: 'node.update', id: node.id, fields: { content: value }, ...(v != null ? { base_version: v } : {}) });
    }
    dirty.current = false;
    base.current = null;
  };
  return (
    <label className="field">
      <span className="field-label-row">
        {t('inspector.content')}
        {value.length > LIMITS.contentMax * 0.9 && (
          <span className={`char-count inline${over ? ' over' : ''}`}>
            {formatNumber(value.length)} / {formatNumber(LIMITS.contentMax)}
          </span>
        )}
      </span>
      <textarea
        className="inspector-content"
        dir="auto"
        value={value}
        readOnly={readOnly}
        rows={5}
        data-testid="inspector-content"
        onFocus={() => (focused.current = true)}
        onChange={(e) => {
          if (!dirty.current) base.current = engine.getSnapshot().server.nodes.get(node.id)?.version ?? null;
          dirty.current = true;
          setValue(e.target.value);
        }}
        onBlur={() => {
          focused.current = false;
          if (!readOnly) commit();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.metaKey || e.ctrlKey) && !isComposing(e)) {
            e.preventDefault();
            commit();
          } else if (e.key === 'Escape') {
            dirty.current = false;
            setValue(node.content);
            (e.target as HTMLTextAreaElement).blur();
          }
        }}
      />
      {over && (
        <span className="node-editor-limit blocked" role="alert" data-testid="inspector-over-limit">
          {t('inspector.contentTooLong', { limit: formatNumber(LIMITS.contentMax) })}
        </span>
      )}
    </label>
  );
}
