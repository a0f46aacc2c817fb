import { Trans, useTranslation } from 'react-i18next';
import type { CanvasNode } from '../../api/types';
import { BotIcon } from '../../components/Icons';
import { formatDateTime } from '../../lib/format';
import { useCanvasActions } from '../context';

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

/** Who made the node, its version and dates. */
export function NodeMetaList({ node }: { node: CanvasNode }) {
  const { t } = useTranslation('canvas');
  return (
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
  );
}
