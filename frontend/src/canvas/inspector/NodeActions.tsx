import { useTranslation } from 'react-i18next';
import type { CanvasNode } from '../../api/types';
import { ArchiveIcon, CopyPlusIcon, TrashIcon } from '../../components/Icons';
import { useCanvasActions } from '../context';
import { useEditSession } from '../editing/editSession';

/** Supersede, archive and delete one node (editors and owners only). */
export function NodeActions({ node }: { node: CanvasNode }) {
  const { t } = useTranslation('canvas');
  const actions = useCanvasActions();
  const session = useEditSession();
  const { submit } = actions;

  // A draft over the canvas, prefilled; nothing is written until it is saved (canvas/editing/CanvasDrafts).
  const supersede = () => session.openSupersede(node.id);

  return (
    <div className="inspector-actions">
      <button className="btn btn-block" onClick={supersede} disabled={!!node.superseded_by} data-testid="inspector-supersede">
        <CopyPlusIcon size={14} /> {t('inspector.supersede')}
      </button>
      <button
        className="btn btn-block"
        onClick={() => submit({ type: 'node.archive', id: node.id, archived: !node.archived })}
        data-testid="inspector-archive"
      >
        <ArchiveIcon size={14} /> {node.archived ? t('inspector.unarchive') : t('inspector.archive')}
      </button>
      <button
        className="btn btn-block btn-danger-ghost"
        onClick={() => {
          submit({ type: 'node.delete', id: node.id });
          actions.selectOnly([]);
        }}
        data-testid="inspector-delete"
      >
        <TrashIcon size={14} /> {t('inspector.deleteNode')}
      </button>
    </div>
  );
}
