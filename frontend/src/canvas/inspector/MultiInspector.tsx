import { useTranslation } from 'react-i18next';
import { TrashIcon } from '../../components/Icons';
import { useCanvasActions } from '../context';

/** Several nodes and/or links selected: how many, and one button to delete them all. */
export function MultiInspector({ nodeCount, edgeCount, onDelete }: { nodeCount: number; edgeCount: number; onDelete(): void }) {
  const { t } = useTranslation('canvas');
  const { readOnly } = useCanvasActions();
  const parts = [nodeCount && t('inspector.nodes', { count: nodeCount }), edgeCount && t('inspector.links', { count: edgeCount })].filter(Boolean);
  return (
    <div className="inspector-section">
      <h2 className="inspector-title">{parts.length > 1 ? t('inspector.selectedBoth', { nodes: parts[0], links: parts[1] }) : t('inspector.selected', { what: parts[0] })}</h2>
      {!readOnly && (
        <button className="btn btn-danger-ghost" onClick={onDelete} data-testid="inspector-delete">
          <TrashIcon size={14} /> {t('inspector.deleteSelection')}
        </button>
      )}
    </div>
  );
}
