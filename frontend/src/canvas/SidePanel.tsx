// The right-hand region: Details (the inspector), Activity and agent Proposals.
import type { ReactNode } from 'react';
import { ActivityIcon, BotIcon, ListIcon } from '../components/Icons';
import { useTranslation } from 'react-i18next';

export type SideTab = 'details' | 'activity' | 'proposals';

export function SidePanel({
  tab,
  onTab,
  proposalCount,
  details,
  activity,
  proposals,
}: {
  tab: SideTab;
  onTab(tab: SideTab): void;
  proposalCount: number;
  details: ReactNode;
  activity: ReactNode;
  proposals: ReactNode;
}) {
  const { t: tr } = useTranslation('canvas');
  const tabs: { id: SideTab; label: string; icon: ReactNode; count?: number }[] = [
    { id: 'details', label: tr('side.details'), icon: <ListIcon size={13} /> },
    { id: 'activity', label: tr('side.activity'), icon: <ActivityIcon size={13} /> },
    { id: 'proposals', label: tr('side.proposals'), icon: <BotIcon size={13} />, count: proposalCount },
  ];
  return (
    <div className="side-panel">
      <div className="side-tabs" role="tablist" aria-label={tr('side.label')}>
        {tabs.map((t) => (
          <button
            key={t.id}
            role="tab"
            aria-selected={tab === t.id}
            className={`side-tab${tab === t.id ? ' active' : ''}`}
            onClick={() => onTab(t.id)}
            data-testid={`tab-${t.id}`}
          >
            {t.icon} {t.label}
            {t.count ? <span className="tab-badge" data-testid={`tab-${t.id}-count`}>{t.count}</span> : null}
          </button>
        ))}
      </div>
      <div className="side-body">{tab === 'details' ? details : tab === 'activity' ? activity : proposals}</div>
    </div>
  );
}
