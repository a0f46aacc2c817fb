import { describe, expect, it } from 'vitest';
import { splitText } from './splitText';

describe('splitText', () => {
  it('keeps a short text whole', () => {
    expect(splitText('端口 5433', 10)).toEqual(['端口 5433']);
  });

  it('cuts at blank lines first and loses nothing', () => {
    const text = 'alpha beta\n\ngamma delta\n\nepsilon';
    const parts = splitText(text, 14);
    expect(parts.join('')).toBe(text);
    expect(parts[0]).toBe('alpha beta\n\n');
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(14);
  });

  it('cuts Chinese text after a full stop', () => {
    const text = '第一句话很短。第二句话也不长。第三句。';
    const parts = splitText(text, 10);
    expect(parts[0]).toBe('第一句话很短。');
    expect(parts.join('')).toBe(text);
  });

  it('falls back to a hard cut without breaking a surrogate pair', () => {
    const text = 'a'.repeat(4) + '😀'.repeat(6);
    const parts = splitText(text, 5);
    expect(parts.join('')).toBe(text);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(5);
      expect(/[\ud800-\udbff]$/.test(p)).toBe(false);
    }
  });

  it('splits 100,000 characters into parts within the limit', () => {
    const text = '数据'.repeat(50_000);
    const parts = splitText(text, 10_000);
    expect(parts).toHaveLength(10);
    expect(parts.join('')).toBe(text);
  });
});
