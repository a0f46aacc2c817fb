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

// ---- WebSocket reject / error frames (docs/protocol.md, "Error codes") ----

/** Codes documented in docs/protocol.md ("Error codes") that have their own message in the sync catalogue. */
export const REJECT_CODES = ['FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'TOO_LARGE', 'RATE_LIMITED', 'INVALID', 'BAD_MESSAGE'] as const;
export const SOCKET_ERROR_CODES = ['INVALID', 'BAD_MESSAGE', 'RATE_LIMITED', 'FORBIDDEN', 'NOT_FOUND', 'INTERNAL'] as const;

/** Is the server's text in the language the UI shows (so it may be shown as a detail)? */
function inUiLanguage(text: string): boolean {
  const lang = i18n.resolvedLanguage ?? i18n.language ?? 'en';
  return lang.startsWith('zh') ? HAN.test(text) : !HAN.test(text);
}

/**
 * The words for a reject or error frame: a documented code gets the client's translated message, followed by
 * the server's detail (e.g. which field) when that is in the UI language; an unknown code shows the server's
 * text, which the server translates by Accept-Language.
 */
export function socketErrorText(kind: 'reject' | 'error', code: string | undefined, serverText: string | undefined): string {
  const known = (kind === 'reject' ? REJECT_CODES : SOCKET_ERROR_CODES) as readonly string[];
  if (code && known.includes(code)) {
    const meaning = i18n.t(`sync:${kind}.${code}`);
    if (serverText && serverText !== meaning && inUiLanguage(serverText)) {
      // INVALID's detail already says what was wrong with which field: it is the clearer sentence alone.
      return code === 'INVALID' ? serverText : i18n.t('sync:withDetail', { meaning, detail: serverText });
    }
    return meaning;
  }
  return serverText || i18n.t(`sync:${kind}.generic`);
}
