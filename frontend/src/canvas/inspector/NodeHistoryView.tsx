import { useTranslation } from 'react-i18next';
import type { CanvasNode } from '../../api/types';
import { ChevronLeftIcon } from '../../components/Icons';
import { snippet } from '../../lib/format';
import { kindMeta } from '../kinds';
import { NodeHistory } from '../NodeHistory';

/** The inspector switched to a node's version history. */
export function NodeHistoryView({ node, canvasId, onBack }: { node: CanvasNode; canvasId: string; onBack(): void }) {
  const { t } = useTranslation('canvas');
  const meta = kindMeta(node.kind);
  return (
    <div className="inspector-section history-view" data-testid="node-inspector">
      <div className="history-view-head">
        <button className="link-btn" onClick={onBack} data-testid="inspector-history-toggle">
          <ChevronLeftIcon size={13} /> {t('inspector.details')}
        </button>
        <span className="muted small">v{node.version}</span>
      </div>
      <div className="history-view-title">
        <span className="kind-pill" style={{ color: meta.color, background: meta.bg }}>
          {meta.label}
        </span>
        <h2 className="inspector-title">{t('inspector.history')}</h2>
      </div>
      <div className="history-view-node">{snippet(node.content || t('inspector.emptyNote'), 120)}</div>
      <NodeHistory canvasId={canvasId} nodeId={node.id} version={node.version} />
    </div>
  );
}
