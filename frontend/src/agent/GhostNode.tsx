import { memo, type CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { BotIcon } from '../components/Icons';
import { kindMeta, weightStyle } from '../canvas/kinds';
import type { GhostNodeData } from './proposals';

export type GhostFlowNode = Node<GhostNodeData, 'ghost'>;

const MODE_KEY = { add: 'ghost.modeAdd', supersede: 'ghost.modeSupersede', move: 'ghost.modeMove' } as const;

function GhostCardImpl({ data }: NodeProps<GhostFlowNode>) {
  const { t } = useTranslation('panels');
  const { node, proposal, mode } = data;
  const meta = kindMeta(node.kind);
  const style = { width: weightStyle(node.weight).width, '--kind': meta.color, '--kind-bg': meta.bg } as CSSProperties;
  return (
    <div
      className={`ghost-card ghost-${mode}`}
      style={style}
      data-testid={`ghost-node-${proposal.id}`}
      title={t('ghost.title')}
      role="button"
    >
      {/* invisible anchors so ghost edges can attach */}
      <Handle type="source" position={Position.Top} className="ghost-handle" isConnectable={false} />
      <div className="node-head">
        <span className="kind-pill">{meta.label}</span>
        <span className="ghost-label">
          <BotIcon size={11} /> {t(MODE_KEY[mode])}
        </span>
      </div>
      <div className="node-content">{node.content || <span className="muted">{t('ghost.empty')}</span>}</div>
      <div className="ghost-foot">
        {t('ghost.foot', { name: proposal.requested_by?.username ?? t('ghost.someone') })}
      </div>
    </div>
  );
}

export const GhostCard = memo(GhostCardImpl);
