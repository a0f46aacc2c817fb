// Floating tools over the canvas: undo/redo, the "written by the agent"
// filter and export.
import type { Role } from '../api/types';
import { BotIcon, DownloadIcon, RedoIcon, UndoIcon } from '../components/Icons';
import { useExportFlow } from '../history/useExportFlow';
import type { UndoRedo } from '../history/useUndoRedo';
import { useCanvasActions } from './context';
import { useOverlay } from './overlay';

const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
const MOD = mac ? '⌘' : 'Ctrl+';

interface Props {
  undo: UndoRedo | null;
  agentCount: number;
  name: string;
  role: Role | null;
}

export function CanvasToolbar({ undo, agentCount, name, role }: Props) {
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
            title={`Undo your last edit (${MOD}Z)`}
            aria-label="Undo"
            data-testid="undo-button"
          >
            <UndoIcon size={15} />
          </button>
          <button
            className="tb-btn"
            onClick={() => void undo.redo()}
            disabled={!undo.canRedo && !undo.busy}
            title={`Redo (${MOD}Shift+Z)`}
            aria-label="Redo"
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
        title="Highlight nodes written by the agent (dims the others)"
        data-testid="agent-filter"
      >
        <BotIcon size={14} /> Written by the agent
        <span className="tb-count">{agentCount}</span>
      </button>
      <span className="tb-sep" />
      <button
        className="tb-btn"
        onClick={() => startExport(canvasId, name, role, secretCount())}
        title="Download as a JSON Canvas file (.canvas)"
        data-testid="export-button"
      >
        <DownloadIcon size={14} /> Export
      </button>
      {exportDialog}
    </div>
  );
}
