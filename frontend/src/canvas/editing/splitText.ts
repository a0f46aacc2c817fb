// Split a text that is over the node limit into parts that each fit, at the
// nicest boundary available: a blank line, a line break, the end of a sentence
// (also 。！？), a space, and only then anywhere (never inside a surrogate pair).

const BOUNDARIES: RegExp[] = [/\n\s*\n/g, /\n/g, /[.!?。！？；;]\s*/g, /\s+/g];

function cutPoint(text: string, max: number): number {
  const window = text.slice(0, max + 1);
  const floor = Math.floor(max / 2);
  for (const re of BOUNDARIES) {
    let best = -1;
    re.lastIndex = 0;
    for (let m = re.exec(window); m; m = re.exec(window)) {
      const end = m.index + m[0].length;
      if (end <= max && end >= floor) best = end;
      if (m[0].length === 0) re.lastIndex++;
    }
    if (best > 0) return best;
  }
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/** Parts of at most `max` characters whose concatenation is `text` (trailing whitespace kept with its part). */
export function splitText(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const cut = cutPoint(rest, max);
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

/** How many notes `text` needs. */
export function partsNeeded(text: string, max: number): number {
  return splitText(text, max).length;
}
