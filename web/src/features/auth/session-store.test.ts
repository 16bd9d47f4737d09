import { describe, expect, it } from 'vitest';
import { decodeTokenClaims, derivePrivilege, deriveSubsStatus, isSubscriptionActive } from './session-store.ts';

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const token = (payload: unknown) => `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(payload)}.signature`;

describe('session derived from the access token', () => {
  it('reads role and subscription status from the user claim', () => {
    const t = token({ sub: 'u1', user: { user_uid: 'u1', role: 'Admin', subs_status: 3, name: 'Zoë Ångström' } });
    expect(derivePrivilege(t)).toBe('Admin');
    expect(deriveSubsStatus(t)).toBe(3);
    expect(decodeTokenClaims(t)).toMatchObject({ name: 'Zoë Ångström' });
  });

  it('defaults privilege to 7 without a token and role to User without a role', () => {
    expect(derivePrivilege(null)).toBe(7);
    expect(derivePrivilege('not-a-jwt')).toBe(7);
    expect(derivePrivilege(token({ user: { user_uid: 'u1' } }))).toBe('User');
    expect(deriveSubsStatus(null)).toBeNull();
  });

  it('treats trial and active as active, staff roles always', () => {
    expect(isSubscriptionActive({ privilege: 'User', subsStatus: 1 })).toBe(true);
    expect(isSubscriptionActive({ privilege: 'User', subsStatus: 2 })).toBe(true);
    for (const s of [3, 4, 5, 6, 7]) expect(isSubscriptionActive({ privilege: 'User', subsStatus: s })).toBe(false);
    expect(isSubscriptionActive({ privilege: 'Moderator', subsStatus: 3 })).toBe(true);
    expect(isSubscriptionActive({ privilege: 7, subsStatus: null })).toBe(false);
  });
});

describe('returnPathOf (/signin?next= after a session ran out)', () => {
  it('gives back a page of this console, with its query and hash', async () => {
    const { returnPathOf } = await import('./session-store.ts');
    expect(returnPathOf('?next=%2Ftrades%2Fclosed%3Fpage%3D2%23top')).toBe('/trades/closed?page=2#top');
    expect(returnPathOf('?next=/accounts')).toBe('/accounts');
  });

  it('never leads elsewhere: other origins, protocol-relative and backslash paths, the sign-in pages, nothing', async () => {
    const { returnPathOf } = await import('./session-store.ts');
    for (const search of ['', '?next=', '?next=https://evil.example/x', '?next=//evil.example/x', '?next=/\\evil.example', '?next=javascript:alert(1)', '?next=/signin', '?next=/signup?x=1']) {
      expect(returnPathOf(search), search).toBeNull();
    }
  });
});
