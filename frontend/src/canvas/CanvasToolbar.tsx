// Floating tools over the canvas: undo/redo, the "written by the agent"
// filter and export.
import type { Role } from '../api/types';
import { BotIcon, DownloadIcon, RedoIcon, UndoIcon } from '../components/Icons';
import { useExportFlow } from '../history/useExportFlow';
import type { UndoRedo } from '../history/useUndoRedo';
import { useCanvasActions } from './context';
import { useOverlay } from './overlay';
import { useTranslation } from 'react-i18next';
import './CanvasToolbar.css';

const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
const MOD = mac ? '⌘' : 'Ctrl+';

interface Props {
  undo: UndoRedo | null;
  agentCount: number;
  name: string;
  role: Role | null;
}

export function CanvasToolbar({ undo, agentCount, name, role }: Props) {
  const { t } = useTranslation('canvas');
  const { overlay: store, canvasId, engine } = useCanvasActions();
  const overlay = useOverlay(store);
  const [startExport, exportDialog] = useExportFlow();
  const secretCount = () => {
    let n = 0;
    for (const node of engine.getSnapshot().doc.nodes.values()) if (node.sensitivity === 'secret') n += 1;
    return n;
  };
  return (
    <div className="canvas-toolbar" data-testid="canvas-toolbar">
      {undo && (
        <>
          <button
            className="tb-btn"
            onClick={() => void undo.undo()}
            disabled={!undo.canUndo && !undo.busy}
            title={t('toolbar.undoHint', { keys: `${MOD}Z` })}
            aria-label={t('toolbar.undo')}
            data-testid="undo-button"
          >
            <UndoIcon size={15} />
          </button>
          <button
            className="tb-btn"
            onClick={() => void undo.redo()}
            disabled={!undo.canRedo && !undo.busy}
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
        <BotIcon size={14} /> <span className="tb-label">{t('toolbar.agentFilter')}</span>
        <span className="tb-count">{agentCount}</span>
      </button>
      <span className="tb-sep" />
      <button
        className="tb-btn"
        onClick={() => startExport(canvasId, name, role, secretCount())}
        title={t('toolbar.exportHint')}
        data-testid="export-button"
      >
        <DownloadIcon size={14} /> <span className="tb-label">{t('toolbar.export')}</span>
      </button>
      {exportDialog}
    </div>
  );
}
