import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NODE_KINDS, type CanvasNode, type NodeFields, type NodeKind } from '../../api/types';
import { AnchorIcon, ArrowRightIcon, HistoryIcon } from '../../components/Icons';
import { snippet } from '../../lib/format';
import type { Doc } from '../../sync/apply';
import { useCanvasActions } from '../context';
import { ContentField } from '../editing/ContentField';
import { KIND_META, kindMeta } from '../kinds';
import { TagInput } from '../TagInput';
import { NodeActions } from './NodeActions';
import { NodeHistoryView } from './NodeHistoryView';
import { NodeMetaList } from './NodeMetaList';
import { SensitivityField } from './SensitivityField';
import { WeightField } from './WeightField';

/** One selected node: its fields, where it stands in a supersede chain, its actions and its history. */
export function NodeInspector({ node, doc }: { node: CanvasNode; doc: Doc }) {
  const { t } = useTranslation('canvas');
  const actions = useCanvasActions();
  const { submit, readOnly, canvasId } = actions;
  const [showHistory, setShowHistory] = useState(false);
  const meta = kindMeta(node.kind);
  const successor = node.superseded_by ? doc.nodes.get(node.superseded_by) : undefined;
  const predecessors = [...doc.nodes.values()].filter((n) => n.superseded_by === node.id);

  const update = (fields: NodeFields) => submit({ type: 'node.update', id: node.id, fields });

  if (showHistory) return <NodeHistoryView node={node} canvasId={canvasId} onBack={() => setShowHistory(false)} />;

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

      <SensitivityField node={node} readOnly={readOnly} update={update} />

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

      {!readOnly && <NodeActions node={node} />}

      <NodeMetaList node={node} />

      <button className="btn btn-block history-toggle" onClick={() => setShowHistory(true)} data-testid="inspector-history-toggle">
        <HistoryIcon size={14} /> {t('inspector.showHistory')}
      </button>
    </div>
  );
}
