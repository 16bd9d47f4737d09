import { describe, expect, it } from 'vitest';
import { jwtPayload, tokenExpiry } from './jwt.ts';

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('reading a JWT without verifying it', () => {
  it("reads the payload, UTF-8 included, and the expiry in milliseconds", () => {
    const token = `${b64url({ alg: 'HS256' })}.${b64url({ exp: 1_800_000_000, user: { name: 'Zoë Ørsted' } })}.sig`;
    expect(jwtPayload(token)).toEqual({ exp: 1_800_000_000, user: { name: 'Zoë Ørsted' } });
    expect(tokenExpiry(token)).toBe(1_800_000_000_000);
  });

  it('says nothing of a text that is not a JWT, or of a payload without a numeric expiry', () => {
    for (const t of ['', 'x.y.z', 'only-one-part', `a.${b64url([1, 2])}.c`, `a.${b64url(42)}.c`]) expect(jwtPayload(t), t).toBeNull();
    expect(tokenExpiry(`a.${b64url({ exp: '1800000000' })}.c`)).toBeNull();
    expect(tokenExpiry(`a.${b64url({ sub: 'x' })}.c`)).toBeNull();
  });
});
