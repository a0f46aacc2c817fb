import { memo, type CSSProperties } from 'react';
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { BotIcon } from '../components/Icons';
import { kindMeta, weightStyle } from '../canvas/kinds';
import type { GhostNodeData } from './proposals';

export type GhostFlowNode = Node<GhostNodeData, 'ghost'>;

const MODE_LABEL = { add: 'Proposed', supersede: 'Proposed replacement', move: 'Proposed position' } as const;

function GhostCardImpl({ data }: NodeProps<GhostFlowNode>) {
  const { node, proposal, mode } = data;
  const meta = kindMeta(node.kind);
  const style = { width: weightStyle(node.weight).width, '--kind': meta.color, '--kind-bg': meta.bg } as CSSProperties;
  return (
    <div
      className={`ghost-card ghost-${mode}`}
      style={style}
      data-testid={`ghost-node-${proposal.id}`}
      title="Proposed by the agent — click to review"
      role="button"
    >
      {/* invisible anchors so ghost edges can attach */}
      <Handle type="source" position={Position.Top} className="ghost-handle" isConnectable={false} />
      <div className="node-head">
        <span className="kind-pill">{meta.label}</span>
        <span className="ghost-label">
          <BotIcon size={11} /> {MODE_LABEL[mode]}
        </span>
      </div>
      <div className="node-content">{node.content || <span className="muted">(empty)</span>}</div>
      <div className="ghost-foot">
        for {proposal.requested_by?.username ?? 'someone'} · waiting for approval
      </div>
    </div>
  );
}

export const GhostCard = memo(GhostCardImpl);
