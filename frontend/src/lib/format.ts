import i18n from 'i18next';
import { formatDate } from '../i18n/format';

export function initials(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) return '?';
  // CJK names: the first character reads best.
  if (/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(trimmed[0])) return trimmed[0];
  const parts = trimmed.split(/[\s._-]+/).filter(Boolean);
  if (parts.length >= 2) return (parts[0][0] + parts[1][0]).toUpperCase();
  return trimmed.slice(0, 2).toUpperCase();
}

const PALETTE = ['#6366f1', '#0ea5e9', '#10b981', '#f59e0b', '#ef4444', '#ec4899', '#8b5cf6', '#14b8a6'];
export function colorFor(key: string | number): string {
  const s = String(key);
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

export function timeAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return i18n.t('common:time.justNow');
  const m = Math.round(s / 60);
  if (m < 60) return i18n.t('common:time.minutesAgo', { count: m });
  const h = Math.round(m / 60);
  if (h < 24) return i18n.t('common:time.hoursAgo', { count: h });
  const d = Math.round(h / 24);
  if (d < 30) return i18n.t('common:time.daysAgo', { count: d });
  return formatDate(t, { dateStyle: 'medium' });
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : formatDate(t);
}

export function snippet(text: string, max = 48): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat;
}

export function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** Enter pressed while an IME (Chinese, Japanese…) is composing must not submit. */
export function isComposing(e: { nativeEvent?: { isComposing?: boolean }; keyCode?: number }): boolean {
  return !!e.nativeEvent?.isComposing || e.keyCode === 229;
}

/** Black or white text, whichever reads better on the given #rrggbb background. */
export function textOn(bg: string): string {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(bg.trim());
  if (!m) return '#fff';
  const [r, g, b] = [m[1], m[2], m[3]].map((h) => {
    const c = parseInt(h, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return lum > 0.4 ? '#101828' : '#fff';
}
