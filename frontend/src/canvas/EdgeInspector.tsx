// The inspector for one selected link.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RELATIONS, relationLabel, type CanvasEdge, type CanvasNode, type Relation } from '../api/types';
import { ArrowRightIcon, TrashIcon } from '../components/Icons';
import { formatDateTime, isComposing, snippet } from '../lib/format';
import type { Doc } from '../sync/apply';
import { useCanvasActions } from './context';
import { relationColor } from './kinds';

export function EdgeInspector({ edge, doc }: { edge: CanvasEdge; doc: Doc }) {
  const { t } = useTranslation('editing');
  const { submit, readOnly, focusNode, selectOnly } = useCanvasActions();
  const [label, setLabel] = useState(edge.label ?? '');
  useEffect(() => setLabel(edge.label ?? ''), [edge.label]);
  const source = doc.nodes.get(edge.source);
  const target = doc.nodes.get(edge.target);
  const commitLabel = () => {
    if (label !== (edge.label ?? '')) submit({ type: 'edge.update', id: edge.id, fields: { label } });
  };
  const end = (n: CanvasNode | undefined, id: string) => (
    <button className="link-btn edge-end-btn" onClick={() => focusNode(id)} disabled={!n}>
      {n ? snippet(n.content || t('edgeInspector.emptyNote'), 40) : t('edgeInspector.hiddenNode')}
    </button>
  );
  return (
    <div className="inspector-section" data-testid="edge-inspector">
      <div className="inspector-head">
        <h2 className="inspector-title">{t('edgeInspector.title')}</h2>
        <span className="muted small">v{edge.version}</span>
      </div>
      <div className="edge-path">
        {end(source, edge.source)}
        <span className="edge-path-rel" style={{ color: relationColor(edge.relation) }}>
          {relationLabel(edge.relation)} <ArrowRightIcon size={12} />
        </span>
        {end(target, edge.target)}
      </div>
      <label className="field">
        <span>{t('relation.title')}</span>
        <select
          value={edge.relation}
          disabled={readOnly}
          onChange={(e) => submit({ type: 'edge.update', id: edge.id, fields: { relation: e.target.value as Relation } })}
          data-testid="inspector-edge-relation"
        >
          {RELATIONS.map((r) => (
            <option key={r} value={r}>
              {relationLabel(r)}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>{t('relation.label')}</span>
        <input
          value={label}
          readOnly={readOnly}
          maxLength={200}
          placeholder={readOnly ? '' : t('relation.labelPlaceholder')}
          onChange={(e) => setLabel(e.target.value)}
          onBlur={() => !readOnly && commitLabel()}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !isComposing(e)) commitLabel();
          }}
          data-testid="inspector-edge-label"
        />
      </label>
      {!readOnly && (
        <button
          className="btn btn-block btn-danger-ghost"
          onClick={() => {
            submit({ type: 'edge.delete', id: edge.id });
            selectOnly([]);
          }}
          data-testid="inspector-edge-delete"
        >
          <TrashIcon size={14} /> {t('relation.deleteLink')}
        </button>
      )}
      <dl className="meta-list">
        <dt>{t('edgeInspector.createdBy')}</dt>
        <dd>{edge.created_by?.username ?? t('edgeInspector.unknown')}</dd>
        <dt>{t('edgeInspector.created')}</dt>
        <dd>{formatDateTime(edge.created_at)}</dd>
      </dl>
    </div>
  );
}
