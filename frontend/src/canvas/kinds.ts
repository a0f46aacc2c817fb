import i18n from 'i18next';
import type { NodeKind, Relation, Sensitivity } from '../api/types';

// Labels are getters so they follow the active language (canvas:kinds.*, canvas:sensitivity.*).
const kind = (k: NodeKind, color: string, bg: string) => ({ get label() { return i18n.t(`canvas:kinds.${k}`); }, color, bg });
const sens = (s: Sensitivity) => ({
  get label() { return i18n.t(`canvas:sensitivity.${s}`); },
  get hint() { return i18n.t(`canvas:sensitivity.${s}Hint`); },
});

export const KIND_META: Record<NodeKind, { label: string; color: string; bg: string }> = {
  fact: kind('fact', '#1d4ed8', '#dbeafe'),
  requirement: kind('requirement', '#6d28d9', '#ede9fe'),
  decision: kind('decision', '#047857', '#d1fae5'),
  config: kind('config', '#0e7490', '#cffafe'),
  question: kind('question', '#b45309', '#fef3c7'),
  note: kind('note', '#475569', '#e2e8f0'),
};

export function kindMeta(kind: string) {
  return (KIND_META as Record<string, { label: string; color: string; bg: string }>)[kind] ?? {
    label: kind,
    color: '#475569',
    bg: '#e2e8f0',
  };
}

export const SENSITIVITY_META: Record<Sensitivity, { label: string; hint: string }> = {
  public: sens('public'),
  internal: sens('internal'),
  secret: sens('secret'),
};

export const RELATION_COLORS: Record<Relation, string> = {
  depends_on: '#2563eb',
  causes: '#ea580c',
  conflicts_with: '#dc2626',
  supersedes: '#94a3b8',
  relates_to: '#64748b',
};

export function relationColor(rel: string): string {
  return (RELATION_COLORS as Record<string, string>)[rel] ?? '#64748b';
}

/** Card width and border thickness grow with weight (0.1–10). */
export function weightStyle(weight: number) {
  const w = Number.isFinite(weight) ? Math.min(10, Math.max(0.1, weight)) : 1;
  const width = Math.round(200 + Math.log2(w) * 28); // 1 → 200px, 10 → ~293px
  return {
    width: Math.min(300, Math.max(170, width)),
    border: w >= 1 ? Math.min(4, 1 + Math.round((w - 1) / 3)) : 1,
  };
}
