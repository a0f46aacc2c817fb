import { describe, expect, it } from 'vitest';
import { boxesOverlap, edgeCurve, placeLabel, type Box, type LabelSize } from './edgeGeometry';

const card = (x: number, y: number, w = 200, h = 80): Box => ({ x, y, w, h });
const SIZES: LabelSize[] = [
  { level: 'full', w: 150, h: 22 },
  { level: 'compact', w: 70, h: 22 },
  { level: 'dot', w: 12, h: 12 },
];
const labelBox = (spot: { x: number; y: number }, size: LabelSize): Box => ({ x: spot.x - size.w / 2, y: spot.y - size.h / 2, w: size.w, h: size.h });
const sizeOf = (level: string) => SIZES.find((s) => s.level === level)!;

describe('edgeCurve', () => {
  it('runs from border to border', () => {
    const c = edgeCurve(card(0, 0), card(400, 0));
    expect(c.at(0)).toEqual({ x: 200, y: 40 });
    expect(c.at(1)).toEqual({ x: 400, y: 40 });
    expect(c.hidden).toBe(false);
  });

  it('is hidden between overlapping cards', () => {
    expect(edgeCurve(card(0, 0), card(50, 20)).hidden).toBe(true);
  });
});

describe('placeLabel', () => {
  it('puts the whole label in the middle of a wide gap', () => {
    const a = card(0, 0);
    const b = card(600, 0);
    const spot = placeLabel(edgeCurve(a, b), SIZES, [a, b]);
    expect(spot).toMatchObject({ level: 'full', x: 400, y: 40 });
  });

  it('shrinks the label where the gap is short, and never lets it touch a card', () => {
    const expected: Record<number, string> = { 100: 'compact', 60: 'dot', 30: 'dot', 20: 'dot' };
    for (const gap of [100, 60, 30, 20]) {
      const a = card(0, 0);
      const b = card(200 + gap, 0);
      const spot = placeLabel(edgeCurve(a, b), SIZES, [a, b]);
      expect(spot).not.toBeNull();
      const box = labelBox(spot!, sizeOf(spot!.level));
      expect(boxesOverlap(box, a)).toBe(false);
      expect(boxesOverlap(box, b)).toBe(false);
      expect(spot!.level).toBe(expected[gap]);
    }
  });

  it('leaves the label out when not even a dot fits', () => {
    const a = card(0, 0);
    const b = card(210, 0);
    expect(placeLabel(edgeCurve(a, b), SIZES, [a, b])).toBeNull();
  });

  it('moves the label off a third card lying across the edge', () => {
    const a = card(0, 0);
    const b = card(1000, 0);
    const across = card(350, -20, 300, 120); // covers the middle of the edge
    const spot = placeLabel(edgeCurve(a, b), SIZES, [a, b, across]);
    expect(spot).not.toBeNull();
    const box = labelBox(spot!, sizeOf(spot!.level));
    for (const c of [a, b, across]) expect(boxesOverlap(box, c)).toBe(false);
    expect(spot!.x < 350 || spot!.x > 650).toBe(true);
  });

  it('keeps the label on the curve between the cards, one above the other too', () => {
    const a = card(0, 0);
    const b = card(0, 300);
    const spot = placeLabel(edgeCurve(a, b), SIZES, [a, b])!;
    expect(spot.level).toBe('full');
    expect(spot.x).toBeCloseTo(100);
    expect(spot.y).toBeGreaterThan(80);
    expect(spot.y).toBeLessThan(300);
  });
});
