/**
 * Share (part 2 §2, §7): a post composer of the social network in a new window with the text filled
 * in; nothing goes to our server. The window is opened without `noopener` in the features string
 * because that makes `window.open` return null, which is also how a blocked pop-up shows: the opener
 * link is cut by hand instead.
 */
export const COMPOSE_URL = 'https://twitter.com/intent/tweet';

export function composeUrl(text: string): string {
  return `${COMPOSE_URL}?text=${encodeURIComponent(text)}`;
}

/** Opens the composer; false when the browser refused the window (a pop-up blocker). */
export function openComposer(text: string): boolean {
  const w = window.open(composeUrl(text), '_blank');
  if (!w) return false;
  try {
    w.opener = null;
  } catch {
    // A cross-origin window may refuse the write; it is already navigating away from us.
  }
  return true;
}

/** 'November 2026' -> 'trade-summary-november-2026.png': the Trade Summary image is named by its month. */
export function monthFileName(prefix: string, monthLabel: string): string {
  return `${prefix}-${monthLabel.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}.png`;
}

/** Share image rendering (part 2 §9): PNG, scale 2, quality 0.5. */
export const SHARE_IMAGE = { scale: 2, quality: 0.5, type: 'image/png' } as const;
