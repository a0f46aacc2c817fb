/** Numbers and dates in the active UI language (Intl). */
import { intlLocale } from './index';

export function formatNumber(n: number): string {
  return new Intl.NumberFormat(intlLocale()).format(n);
}

export function formatDate(ms: number, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  return new Intl.DateTimeFormat(intlLocale(), options).format(new Date(ms));
}
