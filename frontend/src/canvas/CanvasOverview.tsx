// The inspector when nothing is selected: counts, legend, shortcuts.
import { NODE_KINDS, RELATIONS, relationLabel } from '../api/types';
import type { Doc } from '../sync/apply';
import { useCanvasActions } from './context';
import { KIND_META, relationColor } from './kinds';

export function CanvasOverview({ doc }: { doc: Doc }) {
  const { readOnly } = useCanvasActions();
  let pinned = 0;
  let archived = 0;
  for (const n of doc.nodes.values()) {
    if (n.pinned) pinned++;
    if (n.archived) archived++;
  }
  return (
    <div className="inspector-section overview">
      <h2 className="inspector-title">Canvas</h2>
      <div className="stat-grid">
        <div className="stat">
          <div className="stat-value" data-testid="stat-nodes">{doc.nodes.size}</div>
          <div className="stat-label">nodes</div>
        </div>
        <div className="stat">
          <div className="stat-value">{doc.edges.size}</div>
          <div className="stat-label">links</div>
        </div>
        <div className="stat">
          <div className="stat-value">{pinned}</div>
          <div className="stat-label">pinned</div>
        </div>
        <div className="stat">
          <div className="stat-value">{archived}</div>
          <div className="stat-label">archived</div>
        </div>
      </div>
      <p className="muted small">Select a node to see and edit its details.</p>
      <h3 className="inspector-subtitle">Kinds</h3>
      <div className="legend">
        {NODE_KINDS.map((k) => (
          <span key={k} className="kind-pill" style={{ color: KIND_META[k].color, background: KIND_META[k].bg }}>
            {KIND_META[k].label}
          </span>
        ))}
      </div>
      <h3 className="inspector-subtitle">Links</h3>
      <ul className="legend-list">
        {RELATIONS.map((r) => (
          <li key={r}>
            <span className="relation-swatch" style={{ background: relationColor(r) }} /> {relationLabel(r)}
          </li>
        ))}
      </ul>
      {!readOnly && (
        <>
          <h3 className="inspector-subtitle">Shortcuts</h3>
          <ul className="shortcut-list">
            <li><kbd>Double-click</kbd> canvas: new note</li>
            <li><kbd>Double-click</kbd> node / <kbd>Enter</kbd>: edit</li>
            <li><kbd>Shift</kbd>+<kbd>Enter</kbd>: new line</li>
            <li>Drag between dots: link nodes</li>
            <li><kbd>Delete</kbd>: delete selection</li>
          </ul>
        </>
      )}
    </div>
  );
}
