import { describe, expect, it } from 'vitest';
import { SHARE_IMAGE, composeUrl, monthFileName } from './share-links.ts';

describe('share links', () => {
  it('prefills the composer text, encoded', () => {
    expect(composeUrl('$1,200 & 80% #options')).toBe('https://twitter.com/intent/tweet?text=%241%2C200%20%26%2080%25%20%23options');
  });
  it('names the Trade Summary image by its month', () => {
    expect(monthFileName('trade-summary', 'November 2026')).toBe('trade-summary-november-2026.png');
  });
  it('renders PNG at scale 2, quality 0.5 (part 2 §9)', () => {
    expect(SHARE_IMAGE).toEqual({ scale: 2, quality: 0.5, type: 'image/png' });
  });
});
