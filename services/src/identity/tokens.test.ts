import { describe, expect, it } from 'vitest';
import type { SessionUser } from '@oj/contracts/users';
import { signAccessToken, verifyAccessToken } from './tokens.ts';

const user: SessionUser = {
  uid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  user_uid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  name: 'Token Trader',
  email: 'token@example.com',
  role: 'User',
  subs_status: 1,
  uac: true,
  tac: true,
  agreed_to_terms: true,
  has_trade_account: true,
  avatar: null,
};
const secret = 's'.repeat(40);
const at = (iso: string) => new Date(iso);

describe('access tokens', () => {
  it('a token verified once stays valid until its exp second, by the clock, and not a moment after', async () => {
    const token = await signAccessToken(user, secret, at('2026-03-02T15:00:00Z'), 900);
    expect((await verifyAccessToken(token, secret, at('2026-03-02T15:00:00Z')))?.sub).toBe(user.uid);
    // Seen again: answered from the verified tokens, with the expiry still checked against the clock.
    expect((await verifyAccessToken(token, secret, at('2026-03-02T15:14:59.999Z')))?.user.email).toBe('token@example.com');
    expect(await verifyAccessToken(token, secret, at('2026-03-02T15:15:00Z'))).toBeNull();
  });

  it('a token verified under one secret is refused under another', async () => {
    const token = await signAccessToken(user, secret, at('2026-03-02T15:00:00Z'), 900);
    expect(await verifyAccessToken(token, secret, at('2026-03-02T15:01:00Z'))).not.toBeNull();
    expect(await verifyAccessToken(token, 't'.repeat(40), at('2026-03-02T15:01:00Z'))).toBeNull();
  });

  it('a token with a changed payload is refused even when its original was verified', async () => {
    const token = await signAccessToken(user, secret, at('2026-03-02T15:00:00Z'), 900);
    expect(await verifyAccessToken(token, secret, at('2026-03-02T15:01:00Z'))).not.toBeNull();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, user: { ...claims.user, role: 'Admin' } })).toString('base64url')}.${signature}`;
    expect(await verifyAccessToken(forged, secret, at('2026-03-02T15:01:00Z'))).toBeNull();
  });
});
