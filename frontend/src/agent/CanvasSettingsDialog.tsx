// Canvas settings for owners: the agent policy (PATCH /api/canvases/{id}/
// {agent_policy}) and JSON Canvas export.
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, errorMessage } from '../api/client';
import type { AgentMode, AgentPolicyValue, CanvasSummary } from '../api/types';
import { Dialog } from '../components/Dialog';
import { AnchorIcon, ArchiveIcon, BotIcon, DownloadIcon } from '../components/Icons';
import { toast } from '../lib/toast';
import { downloadExport } from '../history/jsonCanvas';

export const DEFAULT_POLICY: AgentPolicyValue = { mode: 'propose', scope: 'all', protect_pinned: true, allow_archive: true, external_access: true };

const MODES: { id: AgentMode; label: string; hint: string }[] = [
  { id: 'off', label: 'settings.modes.off', hint: 'settings.modes.offHint' },
  { id: 'propose', label: 'settings.modes.propose', hint: 'settings.modes.proposeHint' },
  { id: 'auto', label: 'settings.modes.auto', hint: 'settings.modes.autoHint' },
];

const MODE_NAMES: Record<string, string> = { off: 'settings.modeNames.off', propose: 'settings.modeNames.propose', auto: 'settings.modeNames.auto' };

interface Props {
  canvasId: string;
  name: string;
  policy: AgentPolicyValue | null;
  onSaved(canvas: CanvasSummary): void;
  onClose(): void;
}

export function CanvasSettingsDialog({ canvasId, name, policy, onSaved, onClose }: Props) {
  const { t } = useTranslation('panels');
  const initial = { ...DEFAULT_POLICY, ...(policy ?? {}) };
  const [value, setValue] = useState<AgentPolicyValue>(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [exportSecret, setExportSecret] = useState(false);
  const changed = (Object.keys(value) as (keyof AgentPolicyValue)[]).some((k) => value[k] !== initial[k]);
  const set = <K extends keyof AgentPolicyValue>(k: K, v: AgentPolicyValue[K]) => setValue((cur) => ({ ...cur, [k]: v }));

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const diff: Partial<AgentPolicyValue> = {};
      for (const k of Object.keys(value) as (keyof AgentPolicyValue)[]) if (value[k] !== initial[k]) (diff as Record<string, unknown>)[k] = value[k];
      const saved = await api.setAgentPolicy(canvasId, diff);
      onSaved(saved);
      const mode = String(saved.agent_policy?.mode ?? value.mode);
      toast.success(t('settings.savedToast', { mode: MODE_NAMES[mode] ? t(MODE_NAMES[mode]) : mode }), t('settings.savedTitle'));
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={t('settings.title')}
      onClose={onClose}
      width={520}
      testId="settings-dialog"
      footer={
        <>
          <button className="btn" onClick={onClose}>
            {t('settings.cancel')}
          </button>
          <button className="btn btn-primary" onClick={() => void save()} disabled={busy || !changed} data-testid="policy-save">
            {busy ? t('settings.saving') : t('settings.save')}
          </button>
        </>
      }
    >
      <div className="stack">
        <section className="settings-section">
          <h3 className="settings-title">
            <BotIcon size={15} /> {t('settings.agent')}
          </h3>
          <p className="muted small">
            {t('settings.agentIntro')}
          </p>
          <div className="field">
            <span>{t('settings.mode')}</span>
            <div className="segmented" role="radiogroup" aria-label={t('settings.modeAria')}>
              {MODES.map((m) => (
                <button
                  key={m.id}
                  type="button"
                  role="radio"
                  aria-checked={value.mode === m.id}
                  className={`seg${value.mode === m.id ? ' active' : ''}`}
                  onClick={() => set('mode', m.id)}
                  data-testid={`policy-mode-${m.id}`}
                >
                  {t(m.label)}
                </button>
              ))}
            </div>
            <div className="field-hint">{t(MODES.find((m) => m.id === value.mode)?.hint ?? '')}</div>
          </div>
          <fieldset className="field radio-field" disabled={value.mode === 'off'}>
            <span>{t('settings.scope')}</span>
            <label className="radio-row">
              <input type="radio" name="scope" checked={value.scope === 'all'} onChange={() => set('scope', 'all')} data-testid="policy-scope-all" />
              <span>{t('settings.scopeAll')}</span>
            </label>
            <label className="radio-row">
              <input type="radio" name="scope" checked={value.scope === 'tagged'} onChange={() => set('scope', 'tagged')} data-testid="policy-scope-tagged" />
              <span>
                <Trans t={t} i18nKey="settings.scopeTagged" components={{ code: <code /> }} />
              </span>
            </label>
          </fieldset>
          <label className="switch-row">
            <span className="switch-label">
              <AnchorIcon size={14} /> {t('settings.protectPinned')}
              <span className="muted small">{t('settings.protectPinnedHint')}</span>
            </span>
            <input
              type="checkbox"
              className="switch"
              checked={value.protect_pinned}
              disabled={value.mode === 'off'}
              onChange={(e) => set('protect_pinned', e.target.checked)}
              data-testid="policy-protect-pinned"
            />
          </label>
          <label className="switch-row">
            <span className="switch-label">
              <ArchiveIcon size={14} /> {t('settings.allowArchive')}
              <span className="muted small">{t('settings.allowArchiveHint')}</span>
            </span>
            <input
              type="checkbox"
              className="switch"
              checked={value.allow_archive}
              disabled={value.mode === 'off'}
              onChange={(e) => set('allow_archive', e.target.checked)}
              data-testid="policy-allow-archive"
            />
          </label>
          <label className="switch-row">
            <span className="switch-label">
              <BotIcon size={14} /> {t('settings.external')}
              <span className="muted small">{t('settings.externalHint')}</span>
            </span>
            <input
              type="checkbox"
              className="switch"
              checked={value.external_access}
              onChange={(e) => set('external_access', e.target.checked)}
              data-testid="policy-external-access"
            />
          </label>
        </section>

        <section className="settings-section">
          <h3 className="settings-title">
            <DownloadIcon size={15} /> {t('settings.export')}
          </h3>
          <p className="muted small">
            {t('settings.exportIntro')}
          </p>
          <label className="check-row small">
            <input type="checkbox" checked={exportSecret} onChange={(e) => setExportSecret(e.target.checked)} data-testid="settings-export-secret" />{' '}
            {t('settings.includeSecret')}
          </label>
          <div>
            <button
              className="btn btn-small"
              onClick={() => downloadExport(canvasId, name, exportSecret).catch((err) => toast.error(errorMessage(err), t('settings.exportFailed')))}
              data-testid="settings-export"
            >
              <DownloadIcon size={13} /> {t('settings.download')}
            </button>
          </div>
        </section>
        {error && (
          <div className="form-error" role="alert">
            {error}
          </div>
        )}
      </div>
    </Dialog>
  );
}
