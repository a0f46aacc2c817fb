// The inspector when nothing is selected: counts, legend, shortcuts (mouse and keyboard, touch).
import { NODE_KINDS, RELATIONS, relationLabel } from '../api/types';
import type { Doc } from '../sync/apply';
import { useCanvasActions } from './context';
import { KIND_META, relationColor } from './kinds';
import { useTranslation } from 'react-i18next';
import { GestureHints } from './GestureHints';

export function CanvasOverview({ doc }: { doc: Doc }) {
  const { t } = useTranslation('canvas');
  const { readOnly } = useCanvasActions();
  let pinned = 0;
  let archived = 0;
  for (const n of doc.nodes.values()) {
    if (n.pinned) pinned++;
    if (n.archived) archived++;
  }
  return (
    <div className="inspector-section overview">
      <h2 className="inspector-title">{t('overview.title')}</h2>
      <div className="stat-grid">
        <div className="stat">
          <div className="stat-value" data-testid="stat-nodes">{doc.nodes.size}</div>
          <div className="stat-label">{t('overview.nodes', { count: doc.nodes.size })}</div>
        </div>
        <div className="stat">
          <div className="stat-value">{doc.edges.size}</div>
          <div className="stat-label">{t('overview.links', { count: doc.edges.size })}</div>
        </div>
        <div className="stat">
          <div className="stat-value">{pinned}</div>
          <div className="stat-label">{t('overview.pinned')}</div>
        </div>
        <div className="stat">
          <div className="stat-value">{archived}</div>
          <div className="stat-label">{t('overview.archived')}</div>
        </div>
      </div>
      <p className="muted small">{t('overview.hint')}</p>
      <h3 className="inspector-subtitle">{t('overview.kinds')}</h3>
      <div className="legend">
        {NODE_KINDS.map((k) => (
          <span key={k} className="kind-pill" style={{ color: KIND_META[k].color, background: KIND_META[k].bg }}>
            {KIND_META[k].label}
          </span>
        ))}
      </div>
      <h3 className="inspector-subtitle">{t('overview.linkTypes')}</h3>
      <ul className="legend-list">
        {RELATIONS.map((r) => (
          <li key={r}>
            <span className="relation-swatch" style={{ background: relationColor(r) }} /> {relationLabel(r)}
          </li>
        ))}
      </ul>
      {!readOnly && <GestureHints />}
    </div>
  );
}
