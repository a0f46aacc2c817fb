import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RELATIONS, relationLabel, type CanvasEdge, type Relation } from '../api/types';
import { TrashIcon } from '../components/Icons';
import { isComposing } from '../lib/format';
import { useCanvasActions } from './context';
import { Popover } from './Popover';

interface Props {
  edge: CanvasEdge;
  sourceText: string;
  targetText: string;
  x: number;
  y: number;
  onClose(): void;
}

export function EdgeEditor({ edge, sourceText, targetText, x, y, onClose }: Props) {
  const { t } = useTranslation('editing');
  const { submit, readOnly } = useCanvasActions();
  const [label, setLabel] = useState(edge.label ?? '');
  const committed = useRef(edge.label ?? '');

  const setRelation = (relation: Relation) => {
    if (relation !== edge.relation) submit({ type: 'edge.update', id: edge.id, fields: { relation } });
  };
  const commitLabel = () => {
    if (label === committed.current) return;
    committed.current = label;
    submit({ type: 'edge.update', id: edge.id, fields: { label } });
  };

  return (
    <Popover x={x} y={y} onClose={() => { if (!readOnly) commitLabel(); onClose(); }} testId="edge-editor" label={t('relation.edit')}>
      <div className="popover-title">{t('relation.title')}</div>
      <div className="edge-ends muted">
        <span className="edge-end">{sourceText || t('relation.untitled')}</span>
        <span> → </span>
        <span className="edge-end">{targetText || t('relation.untitled')}</span>
      </div>
      {readOnly ? (
        <div className="edge-readonly">
          <strong>{relationLabel(edge.relation)}</strong>
          {edge.label && <span> · {edge.label}</span>}
        </div>
      ) : (
        <div className="stack-sm">
          <label className="field compact">
            <span>{t('relation.type')}</span>
            <select value={edge.relation} onChange={(e) => setRelation(e.target.value as Relation)} data-testid="edge-relation-select">
              {RELATIONS.map((r) => (
                <option key={r} value={r}>
                  {relationLabel(r)}
                </option>
              ))}
            </select>
          </label>
          <label className="field compact">
            <span>{t('relation.label')}</span>
            <input
              value={label}
              maxLength={200}
              placeholder={t('relation.labelPlaceholder')}
              onChange={(e) => setLabel(e.target.value)}
              onBlur={commitLabel}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !isComposing(e)) {
                  e.preventDefault();
                  commitLabel();
                  onClose();
                }
              }}
              data-testid="edge-label-input"
            />
          </label>
          <button
            type="button"
            className="btn btn-danger-ghost btn-small"
            onClick={() => {
              submit({ type: 'edge.delete', id: edge.id });
              onClose();
            }}
            data-testid="edge-delete"
          >
            <TrashIcon size={14} /> {t('relation.deleteLink')}
          </button>
        </div>
      )}
    </Popover>
  );
}
