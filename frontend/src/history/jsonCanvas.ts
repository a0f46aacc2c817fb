// JSON Canvas (.canvas) export download and import upload.
import { api, ApiError, errorMessage } from '../api/client';
import type { ImportResult } from '../api/types';
import i18n from 'i18next';

/** File name from a Content-Disposition header (RFC 5987 filename* first). */
export function filenameFromDisposition(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch {
      /* fall through */
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(header);
  return plain ? plain[1].trim() : fallback;
}

export function safeFileName(name: string): string {
  // Control characters are exactly what a file name must not carry.
  // eslint-disable-next-line no-control-regex
  const cleaned = name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ').trim().slice(0, 120);
  return `${cleaned || 'canvas'}.canvas`;
}

/** Download the canvas as a .canvas file (what my role may see; secret nodes only when asked for). */
export async function downloadExport(canvasId: number | string, name: string, includeSecret = false): Promise<void> {
  let res: Response;
  try {
    res = await fetch(api.exportUrl(canvasId, includeSecret), { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  } catch {
    throw new ApiError(0, { code: 'NETWORK', message: i18n.t('errors:NETWORK') });
  }
  const text = await res.text();
  if (!res.ok) {
    let body: { error?: { code?: string; message?: string } } | null = null;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    throw new ApiError(res.status, body?.error ?? { message: i18n.t('canvas:export.failedStatus', { status: res.status }) });
  }
  const filename = filenameFromDisposition(res.headers.get('Content-Disposition'), safeFileName(name));
  const blob = new Blob([text], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(url);
    a.remove();
  }, 1000);
}

export interface ImportFailure {
  message: string;
  problems: string[];
}

/** Read a .canvas file and import it as a new canvas; throws ImportFailure with every problem listed. */
export async function importCanvasFile(file: File): Promise<ImportResult> {
  if (file.size > 2_621_440) {
    throw { message: i18n.t('canvas:export.fileTooBig', { size: (file.size / 1048576).toFixed(1) }), problems: [] } satisfies ImportFailure;
  }
  let document: unknown;
  try {
    const text = await file.text();
    document = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw { message: i18n.t('canvas:export.notJson', { name: file.name }), problems: [errorMessage(err)] } satisfies ImportFailure;
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) {
    throw { message: i18n.t('canvas:export.notCanvas', { name: file.name }), problems: [] } satisfies ImportFailure;
  }
  // Our own exports carry their name; Obsidian files get the file's name.
  const ns = (document as Record<string, unknown>).canvasweb as { name?: unknown } | undefined;
  const fileName = file.name.replace(/\.canvas$/i, '').replace(/\.json$/i, '').trim().slice(0, 200);
  const name = ns && typeof ns.name === 'string' && ns.name.trim() ? undefined : fileName || undefined;
  try {
    return await api.importCanvas(document, name);
  } catch (err) {
    if (err instanceof ApiError) {
      const problems = Array.isArray(err.body?.problems) ? (err.body.problems as unknown[]).map(String) : [];
      throw { message: err.message, problems } satisfies ImportFailure;
    }
    throw { message: errorMessage(err), problems: [] } satisfies ImportFailure;
  }
}
