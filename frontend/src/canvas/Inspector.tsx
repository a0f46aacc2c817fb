import { useEffect, useRef, useState } from 'react';
import { LIMITS, NODE_KINDS, RELATIONS, relationLabel, SENSITIVITIES, type CanvasEdge, type CanvasNode, type Relation, type NodeFields, type NodeKind, type Sensitivity } from '../api/types';
import { AnchorIcon, ArchiveIcon, ArrowRightIcon, BotIcon, ChevronLeftIcon, CopyPlusIcon, HistoryIcon, LockIcon, TrashIcon } from '../components/Icons';
import { clamp, formatDateTime, isComposing, snippet } from '../lib/format';
import { newEntityId } from '../sync/engine';
import type { Doc } from '../sync/apply';
import { useCanvasActions } from './context';
import { KIND_META, kindMeta, relationColor, SENSITIVITY_META, weightStyle } from './kinds';
import { TagInput } from './TagInput';
import { findFreeSpot } from './placement';
import { NodeHistory } from './NodeHistory';

interface Props {
  doc: Doc;
  selectedNodeIds: string[];
  selectedEdgeIds: string[];
  onDeleteSelection(): void;
}

export function Inspector({ doc, selectedNodeIds, selectedEdgeIds, onDeleteSelection }: Props) {
  const nodes = selectedNodeIds.map((id) => doc.nodes.get(id)).filter((n): n is CanvasNode => !!n);
  const edges = selectedEdgeIds.map((id) => doc.edges.get(id)).filter((e): e is CanvasEdge => !!e);
  const edgeCount = edges.length;

  return (
    <aside className="inspector" data-testid="inspector" aria-label="Inspector">
      {nodes.length === 1 && edgeCount === 0 ? (
        <NodeInspector key={nodes[0].id} node={nodes[0]} doc={doc} />
      ) : nodes.length === 0 && edgeCount === 1 ? (
        <EdgeInspector key={edges[0].id} edge={edges[0]} doc={doc} />
      ) : nodes.length > 1 || edgeCount > 0 ? (
        <MultiInspector nodeCount={nodes.length} edgeCount={edgeCount} onDelete={onDeleteSelection} />
      ) : (
        <CanvasOverview doc={doc} />
      )}
    </aside>
  );
}

function MultiInspector({ nodeCount, edgeCount, onDelete }: { nodeCount: number; edgeCount: number; onDelete(): void }) {
  const { readOnly } = useCanvasActions();
  const parts = [nodeCount && `${nodeCount} node${nodeCount > 1 ? 's' : ''}`, edgeCount && `${edgeCount} link${edgeCount > 1 ? 's' : ''}`].filter(Boolean);
  return (
    <div className="inspector-section">
      <h2 className="inspector-title">{parts.join(' and ')} selected</h2>
      {!readOnly && (
        <button className="btn btn-danger-ghost" onClick={onDelete} data-testid="inspector-delete">
          <TrashIcon size={14} /> Delete selection
        </button>
      )}
    </div>
  );
}

function EdgeInspector({ edge, doc }: { edge: CanvasEdge; doc: Doc }) {
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
      {n ? snippet(n.content || 'Empty note', 40) : 'hidden node'}
    </button>
  );
  return (
    <div className="inspector-section" data-testid="edge-inspector">
      <div className="inspector-head">
        <h2 className="inspector-title">Link</h2>
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
        <span>Relation</span>
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
        <span>Label</span>
        <input
          value={label}
          readOnly={readOnly}
          maxLength={200}
          placeholder={readOnly ? '' : 'Optional note on the link'}
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
          <TrashIcon size={14} /> Delete link
        </button>
      )}
      <dl className="meta-list">
        <dt>Created by</dt>
        <dd>{edge.created_by?.username ?? 'unknown'}</dd>
        <dt>Created</dt>
        <dd>{formatDateTime(edge.created_at)}</dd>
      </dl>
    </div>
  );
}

function CanvasOverview({ doc }: { doc: Doc }) {
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

function ContentField({ node, readOnly }: { node: CanvasNode; readOnly: boolean }) {
  const { submit } = useCanvasActions();
  const [value, setValue] = useState(node.content);
  const focused = useRef(false);
  // Only text the user typed is committed: a focused but untouched field must not
  // write its stale value back over someone else's newer edit on blur.
  const dirty = useRef(false);
  useEffect(() => {
    if (!focused.current || !dirty.current) setValue(node.content);
  }, [node.content]);
  const commit = () => {
    if (dirty.current && value !== node.content) submit({ type: 'node.update', id: node.id, fields: { content: value } });
    dirty.current = false;
  };
  return (
    <label className="field">
      <span className="field-label-row">
        Content
        {value.length > LIMITS.contentMax * 0.9 && (
          <span className={`char-count inline${value.length > LIMITS.contentMax ? ' over' : ''}`}>
            {value.length.toLocaleString()} / {LIMITS.contentMax.toLocaleString()}
          </span>
        )}
      </span>
      <textarea
        className="inspector-content"
        value={value}
        readOnly={readOnly}
        rows={5}
        data-testid="inspector-content"
        onFocus={() => (focused.current = true)}
        onChange={(e) => {
          dirty.current = true;
          setValue(e.target.value);
        }}
        onBlur={() => {
          focused.current = false;
          if (!readOnly) commit();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.metaKey || e.ctrlKey) && !isComposing(e)) {
            e.preventDefault();
            commit();
          } else if (e.key === 'Escape') {
            dirty.current = false;
            setValue(node.content);
            (e.target as HTMLTextAreaElement).blur();
          }
        }}
      />
    </label>
  );
}

function WeightField({ node, readOnly }: { node: CanvasNode; readOnly: boolean }) {
  const { submit } = useCanvasActions();
  const [value, setValue] = useState(String(node.weight));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setValue(String(node.weight)), [node.weight]);

  const commit = (raw: string) => {
    const v = Number(raw);
    if (!Number.isFinite(v) || v < LIMITS.weightMin || v > LIMITS.weightMax) {
      setError(`Weight must be between ${LIMITS.weightMin} and ${LIMITS.weightMax}.`);
      return;
    }
    setError(null);
    const rounded = Math.round(v * 10) / 10;
    if (rounded !== node.weight) submit({ type: 'node.update', id: node.id, fields: { weight: rounded } });
  };

  const numeric = Number(value);
  return (
    <div className="field">
      <span className="field-label-row">
        Weight <span className="muted small">heavier nodes reach the model from further away</span>
      </span>
      <div className="weight-row">
        <input
          type="range"
          min={LIMITS.weightMin}
          max={LIMITS.weightMax}
          step={0.1}
          value={Number.isFinite(numeric) ? clamp(numeric, LIMITS.weightMin, LIMITS.weightMax) : 1}
          disabled={readOnly}
          aria-label="Weight slider"
          onChange={(e) => setValue(e.target.value)}
          onPointerUp={(e) => commit((e.target as HTMLInputElement).value)}
          onKeyUp={(e) => commit((e.target as HTMLInputElement).value)}
        />
        <input
          type="number"
          className="weight-number"
          min={LIMITS.weightMin}
          max={LIMITS.weightMax}
          step={0.1}
          value={value}
          readOnly={readOnly}
          data-testid="inspector-weight"
          aria-label="Weight"
          onChange={(e) => setValue(e.target.value)}
          onBlur={(e) => !readOnly && commit(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit((e.target as HTMLInputElement).value);
          }}
        />
      </div>
      {error && <div className="field-hint error">{error}</div>}
    </div>
  );
}

interface Provenance {
  on_behalf_of?: { username?: string } | null;
  approved_by?: { username?: string } | null;
  conversation_id?: number | null;
  /** The tool outside the page the agent worked in, e.g. "MCP (Claude Desktop)". */
  via?: string | null;
}

function AgentProvenance({ node }: { node: CanvasNode }) {
  const { overlay } = useCanvasActions();
  const p = (node.provenance ?? {}) as Provenance;
  const who = p.on_behalf_of?.username ?? node.created_by?.username ?? 'someone';
  return (
    <span className="provenance">
      <span className="badge badge-agent">
        <BotIcon size={11} /> agent
      </span>{' '}
      {p.via && <span className="muted">via {p.via} </span>}
      for <strong>{who}</strong>
      {p.approved_by?.username && <span className="muted"> · approved by {p.approved_by.username}</span>}
      {p.conversation_id != null && (
        <>
          {' · '}
          <button className="link-btn" onClick={() => overlay.openConversation(p.conversation_id as number)}>
            conversation #{p.conversation_id}
          </button>
        </>
      )}
    </span>
  );
}

function NodeInspector({ node, doc }: { node: CanvasNode; doc: Doc }) {
  const actions = useCanvasActions();
  const { submit, readOnly, canvasId } = actions;
  const [showHistory, setShowHistory] = useState(false);
  const meta = kindMeta(node.kind);
  const successor = node.superseded_by ? doc.nodes.get(node.superseded_by) : undefined;
  const predecessors = [...doc.nodes.values()].filter((n) => n.superseded_by === node.id);

  const update = (fields: NodeFields) => submit({ type: 'node.update', id: node.id, fields });

  const supersede = () => {
    const id = newEntityId();
    const spot = findFreeSpot(node, doc.nodes.values(), { w: weightStyle(node.weight).width }, actions.measure);
    submit({
      type: 'node.supersede',
      id: node.id,
      node: {
        id,
        content: node.content,
        kind: node.kind,
        x: spot.x,
        y: spot.y,
        weight: node.weight,
        tags: node.tags,
        pinned: node.pinned,
        sensitivity: node.sensitivity,
      },
    });
    actions.selectOnly([id]);
    actions.startEditing(id);
  };

  if (showHistory) {
    return (
      <div className="inspector-section history-view" data-testid="node-inspector">
        <div className="history-view-head">
          <button className="link-btn" onClick={() => setShowHistory(false)} data-testid="inspector-history-toggle">
            <ChevronLeftIcon size={13} /> Details
          </button>
          <span className="muted small">v{node.version}</span>
        </div>
        <div className="history-view-title">
          <span className="kind-pill" style={{ color: meta.color, background: meta.bg }}>
            {meta.label}
          </span>
          <h2 className="inspector-title">History</h2>
        </div>
        <div className="history-view-node">{snippet(node.content || 'Empty note', 120)}</div>
        <NodeHistory canvasId={canvasId} nodeId={node.id} version={node.version} />
      </div>
    );
  }

  return (
    <div className="inspector-section" data-testid="node-inspector">
      <div className="inspector-head">
        <span className="kind-pill" style={{ color: meta.color, background: meta.bg }}>
          {meta.label}
        </span>
        <span className="muted small" data-testid="inspector-version">
          v{node.version}
        </span>
      </div>

      {node.superseded_by && (
        <button
          className="superseded-banner"
          onClick={() => node.superseded_by && actions.focusNode(node.superseded_by)}
          disabled={!successor}
          data-testid="inspector-successor"
        >
          Superseded by <ArrowRightIcon size={12} /> <span>{successor ? snippet(successor.content || 'newer version', 40) : 'a version you cannot see'}</span>
        </button>
      )}
      {predecessors.length > 0 && (
        <div className="muted small">
          Supersedes{' '}
          {predecessors.map((p, i) => (
            <span key={p.id}>
              {i > 0 && ', '}
              <button className="link-btn" onClick={() => actions.focusNode(p.id)}>
                {snippet(p.content || 'older version', 30)}
              </button>
            </span>
          ))}
        </div>
      )}

      <ContentField node={node} readOnly={readOnly} />

      <label className="field">
        <span>Kind</span>
        <select
          value={node.kind}
          disabled={readOnly}
          onChange={(e) => update({ kind: e.target.value as NodeKind })}
          data-testid="inspector-kind"
        >
          {NODE_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_META[k].label}
            </option>
          ))}
        </select>
      </label>

      <WeightField node={node} readOnly={readOnly} />

      <div className="field">
        <span>Tags</span>
        <TagInput tags={node.tags} readOnly={readOnly} onChange={(tags) => update({ tags })} />
      </div>

      <div className="field">
        <span>Sensitivity</span>
        <div className="segmented" role="radiogroup" aria-label="Sensitivity" data-testid="inspector-sensitivity">
          {SENSITIVITIES.map((s) => (
            <button
              key={s}
              type="button"
              role="radio"
              aria-checked={node.sensitivity === s}
              className={`seg seg-${s}${node.sensitivity === s ? ' active' : ''}`}
              disabled={readOnly}
              title={SENSITIVITY_META[s].hint}
              onClick={() => node.sensitivity !== s && update({ sensitivity: s as Sensitivity })}
              data-testid={`sensitivity-${s}`}
            >
              {s === 'secret' && <LockIcon size={11} />} {SENSITIVITY_META[s].label}
            </button>
          ))}
        </div>
        <div className="field-hint">{SENSITIVITY_META[node.sensitivity]?.hint}</div>
      </div>

      <label className="switch-row">
        <span className="switch-label">
          <AnchorIcon size={14} /> Pinned anchor
          <span className="muted small"> always in the model's context</span>
        </span>
        <input
          type="checkbox"
          className="switch"
          checked={node.pinned}
          disabled={readOnly}
          onChange={(e) => update({ pinned: e.target.checked })}
          data-testid="inspector-pinned"
        />
      </label>

      {!readOnly && (
        <div className="inspector-actions">
          <button className="btn btn-block" onClick={supersede} disabled={!!node.superseded_by} data-testid="inspector-supersede">
            <CopyPlusIcon size={14} /> Supersede with new version
          </button>
          <button
            className="btn btn-block"
            onClick={() => submit({ type: 'node.archive', id: node.id, archived: !node.archived })}
            data-testid="inspector-archive"
          >
            <ArchiveIcon size={14} /> {node.archived ? 'Unarchive' : 'Archive'}
          </button>
          <button
            className="btn btn-block btn-danger-ghost"
            onClick={() => {
              submit({ type: 'node.delete', id: node.id });
              actions.selectOnly([]);
            }}
            data-testid="inspector-delete"
          >
            <TrashIcon size={14} /> Delete node
          </button>
        </div>
      )}

      <dl className="meta-list">
        <dt>Created by</dt>
        <dd data-testid="inspector-created-by">
          {node.author_kind === 'agent' ? (
            <AgentProvenance node={node} />
          ) : (
            <>
              {node.created_by?.username ?? 'unknown'} <span className="muted">({node.author_kind})</span>
            </>
          )}
        </dd>
        <dt>Version</dt>
        <dd>{node.version}</dd>
        <dt>Created</dt>
        <dd>{formatDateTime(node.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{formatDateTime(node.updated_at)}</dd>
        {node.archived && (
          <>
            <dt>Status</dt>
            <dd>Archived</dd>
          </>
        )}
      </dl>

      <button className="btn btn-block history-toggle" onClick={() => setShowHistory(true)} data-testid="inspector-history-toggle">
        <HistoryIcon size={14} /> Show history
      </button>
    </div>
  );
}
