// Canvas settings for owners: the agent policy (PATCH /api/canvases/{id}/
// {agent_policy}) and JSON Canvas export.
import { useState } from 'react';
import { api, errorMessage } from '../api/client';
import type { AgentMode, AgentPolicyValue, CanvasSummary } from '../api/types';
import { Dialog } from '../components/Dialog';
import { AnchorIcon, ArchiveIcon, BotIcon, DownloadIcon } from '../components/Icons';
import { toast } from '../lib/toast';
import { downloadExport } from '../history/jsonCanvas';

export const DEFAULT_POLICY: AgentPolicyValue = { mode: 'propose', scope: 'all', protect_pinned: true, allow_archive: true, external_access: true };

const MODES: { id: AgentMode; label: string; hint: string }[] = [
  { id: 'off', label: 'Off', hint: 'The agent only answers; it never changes the canvas.' },
  { id: 'propose', label: 'Propose', hint: 'Its changes wait as proposals until an editor or owner approves them.' },
  { id: 'auto', label: 'Auto', hint: "Its changes are applied at once (still limited by the rules below and the user's role)." },
];

interface Props {
  canvasId: string;
  name: string;
  policy: AgentPolicyValue | null;
  onSaved(canvas: CanvasSummary): void;
  onClose(): void;
}

export function CanvasSettingsDialog({ canvasId, name, policy, onSaved, onClose }: Props) {
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
      toast.success(`Agent mode: ${saved.agent_policy?.mode ?? value.mode}`, 'Agent policy saved');
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title="Canvas settings"
      onClose={onClose}
      width={520}
      testId="settings-dialog"
      footer={
        <>
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn btn-primary" onClick={() => void save()} disabled={busy || !changed} data-testid="policy-save">
            {busy ? 'Saving…' : 'Save'}
          </button>
        </>
      }
    >
      <div className="stack">
        <section className="settings-section">
          <h3 className="settings-title">
            <BotIcon size={15} /> Agent
          </h3>
          <p className="muted small">
            What the assistant may write on this canvas when someone asks it to in the chat. It never deletes, never sees secret nodes, and
            a viewer's agent can write nothing.
          </p>
          <div className="field">
            <span>Mode</span>
            <div className="segmented" role="radiogroup" aria-label="Agent mode">
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
                  {m.label}
                </button>
              ))}
            </div>
            <div className="field-hint">{MODES.find((m) => m.id === value.mode)?.hint}</div>
          </div>
          <fieldset className="field radio-field" disabled={value.mode === 'off'}>
            <span>Scope</span>
            <label className="radio-row">
              <input type="radio" name="scope" checked={value.scope === 'all'} onChange={() => set('scope', 'all')} data-testid="policy-scope-all" />
              <span>
                All nodes the user may edit
              </span>
            </label>
            <label className="radio-row">
              <input type="radio" name="scope" checked={value.scope === 'tagged'} onChange={() => set('scope', 'tagged')} data-testid="policy-scope-tagged" />
              <span>
                Only nodes tagged <code>agent-writable</code> or written by the agent
              </span>
            </label>
          </fieldset>
          <label className="switch-row">
            <span className="switch-label">
              <AnchorIcon size={14} /> Protect pinned anchors
              <span className="muted small"> the agent may not change them</span>
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
              <ArchiveIcon size={14} /> Allow archiving
              <span className="muted small"> the agent may archive nodes</span>
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
              <BotIcon size={14} /> MCP and API access
              <span className="muted small"> tools outside the page (Claude Desktop, LangChain, Dify) may use this canvas with a member&apos;s API token</span>
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
            <DownloadIcon size={15} /> Export
          </h3>
          <p className="muted small">
            A JSON Canvas 1.0 file (opens in Obsidian). A downloaded file is no longer protected by the canvas's roles, so secret notes are left
            out unless you include them.
          </p>
          <label className="check-row small">
            <input type="checkbox" checked={exportSecret} onChange={(e) => setExportSecret(e.target.checked)} data-testid="settings-export-secret" />{' '}
            Include secret notes
          </label>
          <div>
            <button
              className="btn btn-small"
              onClick={() => downloadExport(canvasId, name, exportSecret).catch((err) => toast.error(errorMessage(err), 'Export failed'))}
              data-testid="settings-export"
            >
              <DownloadIcon size={13} /> Download .canvas
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
