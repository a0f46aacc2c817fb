import type { NodeKind, Relation, Sensitivity } from '../api/types';

export const KIND_META: Record<NodeKind, { label: string; color: string; bg: string }> = {
  fact: { label: 'Fact', color: '#1d4ed8', bg: '#dbeafe' },
  requirement: { label: 'Requirement', color: '#6d28d9', bg: '#ede9fe' },
  decision: { label: 'Decision', color: '#047857', bg: '#d1fae5' },
  config: { label: 'Config', color: '#0e7490', bg: '#cffafe' },
  question: { label: 'Question', color: '#b45309', bg: '#fef3c7' },
  note: { label: 'Note', color: '#475569', bg: '#e2e8f0' },
};

export function kindMeta(kind: string) {
  return (KIND_META as Record<string, { label: string; color: string; bg: string }>)[kind] ?? {
    label: kind,
    color: '#475569',
    bg: '#e2e8f0',
  };
}

export const SENSITIVITY_META: Record<Sensitivity, { label: string; hint: string }> = {
  public: { label: 'Public', hint: 'Visible to every member' },
  internal: { label: 'Internal', hint: 'Hidden from viewers' },
  secret: { label: 'Secret', hint: 'Owners only; never sent to the model' },
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
