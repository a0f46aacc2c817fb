/**
 * Messages for the documented API / WebSocket error codes (docs/api.md, docs/protocol.md).
 *
 * Clients key on `code`, which never changes. The server translates `message` per Accept-Language; when it
 * could not (a message with variable parts it has no translation for), the UI shows the translated meaning of
 * the code and keeps the server's detail after it.
 */
import i18n from 'i18next';

const HAN = /[\u3400-\u9fff]/;

export const KNOWN_ERROR_CODES = [
  'INVALID', 'BAD_MESSAGE', 'NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'RATE_LIMITED', 'UNAUTHENTICATED',
  'METHOD_NOT_ALLOWED', 'TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL', 'NETWORK', 'ERROR', 'CSRF_FAILED', 'BUSY',
  'MODEL_NOT_CONFIGURED',
] as const;

export function localizedApiMessage(code: string | undefined, message: string | undefined): string {
  const lang = i18n.resolvedLanguage ?? i18n.language;
  const known = (KNOWN_ERROR_CODES as readonly string[]).includes(code ?? '');
  if (!lang?.startsWith('zh')) return message || (known ? i18n.t(`errors:${code}`) : i18n.t('errors:ERROR'));
  if (message && HAN.test(message)) return message; // the server translated it
  const meaning = i18n.t(`errors:${known ? code : 'ERROR'}`);
  if (!message || code === 'NETWORK' || code === 'INTERNAL') return meaning;
  return i18n.t('errors:withDetail', { meaning, detail: message });
}
