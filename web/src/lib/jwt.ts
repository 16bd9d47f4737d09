/**
 * The payload of a JWT, read without verifying it (the server verifies; the console only reads what the
 * token says of the user and of its own expiry). Null when the text is not a JWT with a JSON payload.
 */
export function jwtPayload(token: string): Record<string, unknown> | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const binary = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const payload: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    return payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The token's expiry (its `exp` claim) in milliseconds since the epoch, or null when it says none. */
export function tokenExpiry(token: string): number | null {
  const exp = jwtPayload(token)?.exp;
  return typeof exp === 'number' ? exp * 1000 : null;
}
