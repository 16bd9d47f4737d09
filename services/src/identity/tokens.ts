import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { BoundedMap } from '@oj/infra/bounded-map';
import { accessTokenClaims, type AccessTokenClaims, type SessionUser } from '@oj/contracts/users';

/** 256 random bits, URL-safe: verification, reset and refresh token secrets. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** Tokens are stored as SHA-256: they are high-entropy, so a fast hash is enough and lookups stay exact. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

const keyOf = (secret: string) => new TextEncoder().encode(secret);

/**
 * A short-lived HS256 access token whose `user` claim is what the console's session reads; `sessionId` (the
 * `sid` claim) names the sign-in it belongs to, so ending that sign-in ends the token too.
 */
export async function signAccessToken(user: SessionUser, secret: string, now: Date, ttlSeconds: number, sessionId?: string): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT(sessionId ? { user, sid: sessionId } : { user })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.uid)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(keyOf(secret));
}

/**
 * Tokens whose signature this process has verified, with their claims. A signature under a given secret
 * never stops being valid, so a token seen again needs only its expiry checked: the HMAC check (through
 * WebCrypto, key import included) was a seventh of the gateway's time per command. Bounded: the oldest
 * entries go first.
 */
const verified = new BoundedMap<string, { secret: string; claims: AccessTokenClaims }>(10_000);

/** The claims of a valid token, or null (bad signature, wrong algorithm, expired by the injected clock, malformed). */
export async function verifyAccessToken(token: string, secret: string, now: Date): Promise<AccessTokenClaims | null> {
  const known = verified.get(token);
  // jose's rule: a token is expired from its `exp` second on.
  if (known && known.secret === secret) return now.getTime() < known.claims.exp * 1000 ? known.claims : null;
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), { algorithms: ['HS256'], currentDate: now });
    const parsed = accessTokenClaims.safeParse(payload);
    if (!parsed.success) return null;
    verified.set(token, { secret, claims: parsed.data });
    return parsed.data;
  } catch {
    return null;
  }
}
