/** The codings the gateway compresses with, in the order it prefers them. */
export const CONTENT_ENCODINGS = ['br', 'gzip'] as const;
export type ContentEncoding = (typeof CONTENT_ENCODINGS)[number];

/**
 * The codings an Accept-Encoding header takes, lower-cased. A coding given `q=0` is refused by the client
 * and left out; `identity` and `*` are not codings this gateway sends, so they are never chosen.
 */
export function acceptedEncodings(acceptEncoding: string | undefined): Set<string> {
  const accepted = new Set<string>();
  if (!acceptEncoding) return accepted;
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name && (q === undefined || Number(q) > 0)) accepted.add(name.trim());
  }
  return accepted;
}

/** The first of the gateway's codings the header takes and `available` offers (brotli, else gzip), or null. */
export function chooseEncoding(acceptEncoding: string | undefined, available: (encoding: ContentEncoding) => boolean = () => true): ContentEncoding | null {
  if (!acceptEncoding) return null;
  const accepted = acceptedEncodings(acceptEncoding);
  return CONTENT_ENCODINGS.find((encoding) => accepted.has(encoding) && available(encoding)) ?? null;
}

/** Adds `accept-encoding` to a Vary header's value (kept once). */
export function varyOnEncoding(vary: unknown): string {
  const names = String(vary ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.some((name) => name === '*' || name.toLowerCase() === 'accept-encoding') ? names.join(', ') : [...names, 'accept-encoding'].join(', ');
}
