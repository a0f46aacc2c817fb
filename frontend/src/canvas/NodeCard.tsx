import { memo, type CSSProperties } from 'react';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import type { CanvasNode } from '../api/types';
import { AnchorIcon, ArchiveIcon, ArrowRightIcon, BotIcon, LockIcon } from '../components/Icons';
import { kindMeta, weightStyle } from './kinds';
import { useCanvasActions, useEditingId } from './context';
import { CardEditor } from './editing/CardEditor';
import { usePeerEditors } from './editing/peerActivity';
import { useTranslation } from 'react-i18next';
import i18n from 'i18next';

export interface CardDecor {
  /** context preview: rank when the node would be sent to the model */
  rank: number | null;
  ctxReason: string | null;
  placeholder: boolean;
  /** context preview: why it would not be sent */
  excluded: string | null;
  /** faded by a filter or the preview */
  dimmed: boolean;
  /** pending agent proposals that change this node */
  proposals: number[] | null;
}

export interface CardData extends Record<string, unknown> {
  node: CanvasNode;
  pending: boolean;
  /** snippet of the successor's content, when the successor is visible */
  successor: string | null;
  decor?: CardDecor;
}

// Catalogue keys (canvas:ctxReasons.*) for why a node was or was not sent to the model.
export const REASON_LABELS: Record<string, string> = {
  anchor: 'anchor',
  pinned: 'anchor',
  viewport: 'viewport',
  distance: 'viewport',
  nearby: 'viewport',
  neighbour: 'neighbour',
  neighbor: 'neighbour',
  match: 'match',
  question: 'match',
  question_match: 'match',
  superseded: 'superseded',
  archived: 'archived',
  not_visible: 'notVisible',
  over_budget: 'overBudget',
  out_of_range: 'outOfRange',
  not_selected: 'notSelected',
  secret: 'secret',
};

export function reasonLabel(reason: string | null | undefined): string {
  if (!reason) return '';
  if (reason.startsWith('linked:')) {
    const relation = reason.split(':')[1] ?? '';
    const key = `canvas:relations.${relation}`;
    return relation ? i18n.t('canvas:ctxReasons.linked', { relation: i18n.exists(key) ? i18n.t(key) : relation.replace(/_/g, ' ') }) : i18n.t('canvas:ctxReasons.neighbour');
  }
  const key = REASON_LABELS[reason];
  return key ? i18n.t(`canvas:ctxReasons.${key}`) : reason.replace(/_/g, ' ');
}
export type CardNode = Node<CardData, 'card'>;

const MAX_TAGS = 4;

export function SensitivityBadge({ value }: { value: string }) {
  const { t } = useTranslation('canvas');
  if (value === 'secret')
    return (
      <span className="badge badge-secret" title={t('card.secretHint')} data-testid="badge-sensitivity">
        <LockIcon size={11} /> {t('sensitivity.secret')}
      </span>
    );
  if (value === 'internal')
    return (
      <span className="badge badge-internal" title={t('card.internalHint')} data-testid="badge-sensitivity">
        {t('sensitivity.internal')}
      </span>
    );
  return null;
}

function NodeCardImpl({ id, data, selected }: NodeProps<CardNode>) {
  const { t } = useTranslation('canvas');
  const { node, pending, successor, decor } = data;
  const actions = useCanvasActions();
  const editing = useEditingId() === id;
  const meta = kindMeta(node.kind);
  const ws = weightStyle(node.weight);
  const superseded = !!node.superseded_by;
  const peerEditors = usePeerEditors(id);

  const cls = [
    'node-card',
    `kind-${node.kind}`,
    selected && 'selected',
    node.archived && 'archived',
    superseded && 'superseded',
    pending && 'pending',
    node.pinned && 'pinned',
    editing && 'editing',
    `sens-${node.sensitivity}`,
    decor?.rank != null && 'ctx-included',
    decor?.excluded && 'ctx-excluded',
    decor?.dimmed && 'dimmed',
    decor?.proposals && 'has-proposal',
    peerEditors && 'peer-editing',
  ]
    .filter(Boolean)
    .join(' ');

  const style = { width: ws.width, borderWidth: ws.border, '--kind': meta.color, '--kind-bg': meta.bg } as CSSProperties;

  return (
    <div
      className={cls}
      style={style}
      data-testid={`node-${id}`}
      data-kind={node.kind}
      data-weight={node.weight}
      data-author={node.author_kind}
      data-context={decor?.rank != null ? 'included' : decor?.excluded ? 'excluded' : undefined}
      data-rank={decor?.rank ?? undefined}
    >
      {decor?.rank != null && (
        <span
          className={`ctx-rank${decor.placeholder ? ' placeholder' : ''}`}
          title={t(decor.placeholder ? 'card.sentAsPlaceholder' : 'card.sentAs', { rank: decor.rank, reason: reasonLabel(decor.ctxReason) })}
          data-testid="preview-rank"
        >
          {decor.rank}
        </span>
      )}
      {decor?.excluded && (
        <span className="ctx-excluded-tag" title={t('card.notSent', { reason: reasonLabel(decor.excluded) })} data-testid="ctx-excluded-reason">
          {reasonLabel(decor.excluded)}
        </span>
      )}
      {decor?.proposals && (
        <button
          type="button"
          className="proposal-mark nodrag"
          title={t('card.proposalHint')}
          data-testid="badge-proposal"
          onClick={(e) => {
            e.stopPropagation();
            actions.overlay.focusProposal(decor.proposals![0]);
          }}
        >
          <BotIcon size={11} /> {t('card.proposedChange')}
        </button>
      )}
      {peerEditors && (
        <span
          className="peer-editing-badge"
          style={{ '--peer': peerEditors[0].color } as CSSProperties}
          title={t('card.peersEditingTitle', { names: peerEditors.map((p) => p.username).join(t('card.nameSeparator')), count: peerEditors.length })}
          data-testid="badge-peer-editing"
        >
          ✎ {t('card.peersEditing', { names: peerEditors.map((p) => p.username).join(t('card.nameSeparator')) })}
        </span>
      )}
      {(['top', 'right', 'bottom', 'left'] as const).map((side) => (
        <Handle
          key={side}
          id={side}
          type="source"
          position={side === 'top' ? Position.Top : side === 'right' ? Position.Right : side === 'bottom' ? Position.Bottom : Position.Left}
          className="node-handle"
          isConnectable={!actions.readOnly}
        />
      ))}
      <div className="node-head">
        <span className="kind-pill" data-testid="node-kind">
          {meta.label}
        </span>
        <span className="node-badges">
          {node.author_kind === 'agent' && (
            <span className="badge badge-agent" title={t('toolbar.agentFilter')} data-testid="badge-agent">
              <BotIcon size={11} /> {t('inspector.agent')}
            </span>
          )}
          <SensitivityBadge value={node.sensitivity} />
          {node.archived && (
            <span className="badge badge-archived" title={t('inspector.archived')} data-testid="badge-archived">
              <ArchiveIcon size={11} /> {t('card.archived')}
            </span>
          )}
          {node.pinned && (
            <span className="pin-mark" title={t('card.pinnedHint')} data-testid="badge-pinned">
              <AnchorIcon size={13} />
            </span>
          )}
        </span>
      </div>
      {editing ? (
        <CardEditor node={node} />
      ) : (
        <div className={`node-content${node.content ? '' : ' empty'}`} data-testid="node-content" dir="auto">
          {node.content || (actions.readOnly ? t('card.emptyNote') : t('card.emptyNoteHint'))}
        </div>
      )}
      {node.tags.length > 0 && (
        <div className="node-tags">
          {node.tags.slice(0, MAX_TAGS).map((t) => (
            <span key={t} className="tag-chip" title={`#${t}`} data-testid="node-tag">
              <span className="tag-chip-text">#{t}</span>
            </span>
          ))}
          {node.tags.length > MAX_TAGS && <span className="tag-chip more">+{node.tags.length - MAX_TAGS}</span>}
        </div>
      )}
      {superseded && (
        <button
          type="button"
          className="superseded-link nodrag"
          data-testid="superseded-link"
          disabled={successor === null}
          title={successor === null ? t('card.newerHidden') : t('card.showNewer')}
          onClick={(e) => {
            e.stopPropagation();
            if (node.superseded_by) actions.focusNode(node.superseded_by);
          }}
        >
          <span>{t('card.superseded')}</span>
          {successor !== null && (
            <>
              <ArrowRightIcon size={12} />
              <span className="superseded-target">{successor || 'newer version'}</span>
            </>
          )}
        </button>
      )}
    </div>
  );
}

export const NodeCard = memo(NodeCardImpl);
