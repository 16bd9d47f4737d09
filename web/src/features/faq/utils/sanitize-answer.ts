import DOMPurify from 'dompurify';

/**
 * FAQ answers are HTML (part 2 §3). Only this subset survives: text formatting, lists and links; no
 * scripts, styles, event handlers, images or forms. Links keep only their href, and only same-site paths
 * or http(s)/mailto addresses.
 */
const ALLOWED_TAGS = ['p', 'ul', 'ol', 'li', 'strong', 'em', 'b', 'i', 'code', 'a', 'br'];
const ALLOWED_ATTR = ['href'];
const SAFE_URI = /^(?:\/(?!\/)|https?:|mailto:)/i;

/** Exported for the browser test, which runs DOMPurify with exactly this configuration against hostile HTML. */
export const answerSanitizeConfig = { ALLOWED_TAGS, ALLOWED_ATTR, ALLOWED_URI_REGEXP: SAFE_URI };

export function sanitizeAnswer(html: string): string {
  return DOMPurify.sanitize(html, answerSanitizeConfig);
}

/** The answer as plain text, for the search. */
export function answerText(html: string): string {
  const doc = new DOMParser().parseFromString(sanitizeAnswer(html), 'text/html');
  return doc.body.textContent ?? '';
}
