// Floating tools over the canvas: undo/redo, the "written by the agent"
// filter and export.
import { errorMessage } from '../api/client';
import { BotIcon, DownloadIcon, RedoIcon, UndoIcon } from '../components/Icons';
import { toast } from '../lib/toast';
import { downloadExport } from '../history/jsonCanvas';
import type { UndoRedo } from '../history/useUndoRedo';
import { useCanvasActions } from './context';
import { useOverlay } from './overlay';
import { useTranslation } from 'react-i18next';

const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
const MOD = mac ? '⌘' : 'Ctrl+';

export function CanvasToolbar({ undo, agentCount, name }: { undo: UndoRedo | null; agentCount: number; name: string }) {
  const { t } = useTranslation('canvas');
  const { overlay: store, canvasId } = useCanvasActions();
  const overlay = useOverlay(store);
  return (
    <div className="canvas-toolbar" data-testid="canvas-toolbar">
      {undo && (
        <>
          <button
            className="tb-btn"
            onClick={() => void undo.undo()}
            disabled={!undo.canUndo || undo.busy}
            title={t('toolbar.undoHint', { keys: `${MOD}Z` })}
            aria-label={t('toolbar.undo')}
            data-testid="undo-button"
          >
            <UndoIcon size={15} />
          </button>
          <button
            className="tb-btn"
            onClick={() => void undo.redo()}
            disabled={!undo.canRedo || undo.busy}
            title={t('toolbar.redoHint', { keys: `${MOD}Shift+Z` })}
            aria-label={t('toolbar.redo')}
            data-testid="redo-button"
          >
            <RedoIcon size={15} />
          </button>
          <span className="tb-sep" />
        </>
      )}
      <button
        className={`tb-btn tb-toggle${overlay.agentOnly ? ' on' : ''}`}
        onClick={() => store.setAgentOnly(!overlay.agentOnly)}
        aria-pressed={overlay.agentOnly}
        title={t('toolbar.agentFilterHint')}
        data-testid="agent-filter"
      >
        <BotIcon size={14} /> {t('toolbar.agentFilter')}
        <span className="tb-count">{agentCount}</span>
      </button>
      <span className="tb-sep" />
      <button
        className="tb-btn"
        onClick={() => downloadExport(canvasId, name).catch((err) => toast.error(errorMessage(err), t('pages:list.exportFailed')))}
        title={t('toolbar.exportHint')}
        data-testid="export-button"
      >
        <DownloadIcon size={14} /> {t('toolbar.export')}
      </button>
    </div>
  );
}
