// The size of an edge label (styles.css `.edge-label`: 11 px semibold text, 8 px padding each side, 1 px
// border, line height 1.5, at most 220 px wide) without laying it out: text measured on a canvas, in flow px.
import type { LabelSize } from './edgeGeometry';

const PAD_X = 18;
const HEIGHT = 11 * 1.5 + 4 + 2;
const MAX_W = 220;
export const DOT_SIZE = 12;

let ctx: CanvasRenderingContext2D | null | undefined;
function context(): CanvasRenderingContext2D | null {
  if (ctx !== undefined) return ctx;
  try {
    ctx = typeof document === 'undefined' || /jsdom/i.test(navigator.userAgent) ? null : document.createElement('canvas').getContext('2d');
    if (ctx) ctx.font = `600 11px ${getComputedStyle(document.body).fontFamily || 'sans-serif'}`;
  } catch {
    ctx = null;
  }
  return ctx;
}

const cache = new Map<string, number>();
/** text width in px (CJK and Latin measured with the page's font; an estimate where no canvas exists) */
export function textWidth(text: string): number {
  let w = cache.get(text);
  if (w === undefined) {
    const c = context();
    // fallback: CJK characters are about one em wide, others about 0.6 em
    w = c ? c.measureText(text).width : [...text].reduce((sum, ch) => sum + (ch.charCodeAt(0) > 0x2e80 ? 11 : 6.6), 0);
    if (cache.size > 2000) cache.clear();
    cache.set(text, w);
  }
  return w;
}

/** the sizes to try, largest first: the full text, the relation alone, a dot */
export function labelSizes(full: string, compact: string): LabelSize[] {
  const sizes: LabelSize[] = [{ level: 'full', w: Math.min(MAX_W, textWidth(full) + PAD_X), h: HEIGHT }];
  if (compact !== full) sizes.push({ level: 'compact', w: Math.min(MAX_W, textWidth(compact) + PAD_X), h: HEIGHT });
  sizes.push({ level: 'dot', w: DOT_SIZE, h: DOT_SIZE });
  return sizes;
}
