import { useEffect, useState } from 'react';
import { LIMITS, NODE_KINDS, SENSITIVITIES, type CanvasEdge, type CanvasNode, type NodeFields, type NodeKind, type Sensitivity } from '../api/types';
import { AnchorIcon, ArchiveIcon, ArrowRightIcon, BotIcon, ChevronLeftIcon, CopyPlusIcon, HistoryIcon, LockIcon, TrashIcon } from '../components/Icons';
import { clamp, formatDateTime, snippet } from '../lib/format';
import type { Doc } from '../sync/apply';
import { useCanvasActions } from './context';
import { KIND_META, kindMeta, SENSITIVITY_META } from './kinds';
import { TagInput } from './TagInput';
import { NodeHistory } from './NodeHistory';
import { ContentField } from './editing/ContentField';
import { EdgeInspector } from './EdgeInspector';
import { CanvasOverview } from './CanvasOverview';
import { useEditSession } from './editing/editSession';
import { Trans, useTranslation } from 'react-i18next';

interface Props {
  doc: Doc;
  selectedNodeIds: string[];
  selectedEdgeIds: string[];
  onDeleteSelection(): void;
}

export function Inspector({ doc, selectedNodeIds, selectedEdgeIds, onDeleteSelection }: Props) {
  const { t } = useTranslation('canvas');
  const nodes = selectedNodeIds.map((id) => doc.nodes.get(id)).filter((n): n is CanvasNode => !!n);
  const edges = selectedEdgeIds.map((id) => doc.edges.get(id)).filter((e): e is CanvasEdge => !!e);
  const edgeCount = edges.length;

  return (
    <aside className="inspector" data-testid="inspector" aria-label={t('inspector.label')}>
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

function WeightField({ node, readOnly }: { node: CanvasNode; readOnly: boolean }) {
  const { t } = useTranslation('canvas');
  const { submit } = useCanvasActions();
  const [value, setValue] = useState(String(node.weight));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setValue(String(node.weight)), [node.weight]);

  const commit = (raw: string) => {
    const v = Number(raw);
    if (!Number.isFinite(v) || v < LIMITS.weightMin || v > LIMITS.weightMax) {
      setError(t('inspector.weightRange', { min: LIMITS.weightMin, max: LIMITS.weightMax }));
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
        {t('inspector.weight')} <span className="muted small">{t('inspector.weightHint')}</span>
      </span>
      <div className="weight-row">
        <input
          type="range"
          min={LIMITS.weightMin}
          max={LIMITS.weightMax}
          step={0.1}
          value={Number.isFinite(numeric) ? clamp(numeric, LIMITS.weightMin, LIMITS.weightMax) : 1}
          disabled={readOnly}
          aria-label={t('inspector.weightSlider')}
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
          aria-label={t('inspector.weight')}
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
  const { t } = useTranslation('canvas');
  const { overlay } = useCanvasActions();
  const p = (node.provenance ?? {}) as Provenance;
  const who = p.on_behalf_of?.username ?? node.created_by?.username ?? t('inspector.someone');
  return (
    <span className="provenance">
      <span className="badge badge-agent">
        <BotIcon size={11} /> {t('inspector.agent')}
      </span>{' '}
      {p.via && <span className="muted">{t('inspector.via', { via: p.via })} </span>}
      <Trans t={t} i18nKey="inspector.forWho" values={{ who }} components={{ b: <strong /> }} />
      {p.approved_by?.username && <span className="muted"> · {t('inspector.approvedBy', { name: p.approved_by.username })}</span>}
      {p.conversation_id != null && (
        <>
          {' · '}
          <button className="link-btn" onClick={() => overlay.openConversation(p.conversation_id as number)}>
            {t('inspector.conversation', { id: p.conversation_id })}
          </button>
        </>
      )}
    </span>
  );
}

function NodeInspector({ node, doc }: { node: CanvasNode; doc: Doc }) {
  const { t } = useTranslation('canvas');
  const actions = useCanvasActions();
  const session = useEditSession();
  const { submit, readOnly, canvasId } = actions;
  const [showHistory, setShowHistory] = useState(false);
  const meta = kindMeta(node.kind);
  const successor = node.superseded_by ? doc.nodes.get(node.superseded_by) : undefined;
  const predecessors = [...doc.nodes.values()].filter((n) => n.superseded_by === node.id);

  const update = (fields: NodeFields) => submit({ type: 'node.update', id: node.id, fields });

  // A draft over the canvas, prefilled; nothing is written until it is saved (canvas/editing/CanvasDrafts).
  const supersede = () => session.openSupersede(node.id);

  if (showHistory) {
    return (
      <div className="inspector-section history-view" data-testid="node-inspector">
        <div className="history-view-head">
          <button className="link-btn" onClick={() => setShowHistory(false)} data-testid="inspector-history-toggle">
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
          {t('inspector.supersededBy')} <ArrowRightIcon size={12} /> <span>{successor ? snippet(successor.content || t('inspector.newerVersion'), 40) : t('inspector.hiddenVersion')}</span>
        </button>
      )}
      {predecessors.length > 0 && (
        <div className="muted small">
          {t('inspector.supersedes')}{' '}
          {predecessors.map((p, i) => (
            <span key={p.id}>
              {i > 0 && t('inspector.listSeparator')}
              <button className="link-btn" onClick={() => actions.focusNode(p.id)}>
                {snippet(p.content || t('inspector.olderVersion'), 30)}
              </button>
            </span>
          ))}
        </div>
      )}

      <ContentField node={node} readOnly={readOnly} />

      <label className="field">
        <span>{t('inspector.kind')}</span>
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
        <span>{t('inspector.tags')}</span>
        <TagInput tags={node.tags} readOnly={readOnly} onChange={(tags) => update({ tags })} />
      </div>

      <div className="field">
        <span>{t('inspector.sensitivity')}</span>
        <div className="segmented" role="radiogroup" aria-label={t('inspector.sensitivity')} data-testid="inspector-sensitivity">
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
          <AnchorIcon size={14} /> {t('inspector.pinned')}
          <span className="muted small"> {t('inspector.pinnedHint')}</span>
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
      {node.pinned && node.sensitivity === 'secret' && (
        <div className="field-hint warn" role="note" data-testid="pinned-secret-warning">
          {t('inspector.pinnedSecretWarning')}
        </div>
      )}

      {!readOnly && (
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
      )}

      <dl className="meta-list">
        <dt>{t('inspector.createdBy')}</dt>
        <dd data-testid="inspector-created-by">
          {node.author_kind === 'agent' ? (
            <AgentProvenance node={node} />
          ) : (
            <>
              {node.created_by?.username ?? t('inspector.unknown')} <span className="muted">({t(`inspector.author.${node.author_kind}`, { defaultValue: node.author_kind })})</span>
            </>
          )}
        </dd>
        <dt>{t('inspector.version')}</dt>
        <dd>{node.version}</dd>
        <dt>{t('inspector.created')}</dt>
        <dd>{formatDateTime(node.created_at)}</dd>
        <dt>{t('inspector.updated')}</dt>
        <dd>{formatDateTime(node.updated_at)}</dd>
        {node.archived && (
          <>
            <dt>{t('inspector.status')}</dt>
            <dd>{t('inspector.archived')}</dd>
          </>
        )}
      </dl>

      <button className="btn btn-block history-toggle" onClick={() => setShowHistory(true)} data-testid="inspector-history-toggle">
        <HistoryIcon size={14} /> {t('inspector.showHistory')}
      </button>
    </div>
  );
}
