import { describe, expect, it } from 'vitest';
import { blend, contrastRatio, readableTextOn, tileHue } from './treemap-labels.ts';

describe('treemap label colours', () => {
  it('computes the WCAG contrast ratio', () => {
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 5);
    // QA's figures: white on the dark card's green and red.
    expect(contrastRatio('#ffffff', '#34d399')).toBeCloseTo(1.9, 1);
    expect(contrastRatio('#ffffff', '#f87171')).toBeCloseTo(2.8, 1);
  });

  it('picks a text colour of 4.5:1 or more on every tile colour of the share card and the dashboard', () => {
    // Share card (light and dark) positive, negative, even; dashboard tokens (light and dark) success and danger,
    // at full strength and at the faintest tile (45 % over the card).
    const tiles = ['#0f9d6b', '#dc3545', '#d4a017', '#34d399', '#f87171', '#facc15'];
    for (const [color, surface] of [['#0f9d6b', '#ffffff'], ['#dc3545', '#ffffff'], ['#34c38f', '#111a2e'], ['#f0616e', '#111a2e']] as const) {
      tiles.push(color, blend(color, surface, 0.45));
    }
    for (const tile of tiles) expect(contrastRatio(readableTextOn(tile), tile), tile).toBeGreaterThanOrEqual(4.5);
  });

  it('blends a colour over another', () => {
    expect(blend('#000000', '#ffffff', 0.5)).toBe('#808080');
    expect(blend('#34c38f', '#111a2e', 1)).toBe('#34c38f');
  });

  it('colours a tile by its premium: a gain, a loss, and 0 as even on the dashboard and on the card alike (QA: $0 was green)', () => {
    const hues = { positive: 'green', negative: 'red', even: 'yellow' };
    expect([tileHue(120, hues), tileHue(-0.01, hues), tileHue(0, hues)]).toEqual(['green', 'red', 'yellow']);
  });
});
