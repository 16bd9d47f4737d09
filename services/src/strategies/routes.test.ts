import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strategyCatalogue } from '@oj/contracts/strategies';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ label: 'strategies_routes' });
});
afterAll(async () => {
  await t?.close();
});

describe('GET /strategies/', () => {
  it('serves the catalogue to verified users', async () => {
    const s = await signInAs(t);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/strategies/', headers: { authorization: s.authorization } });
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list).toEqual(JSON.parse(JSON.stringify(strategyCatalogue)));
    const names = list.map((x: { name: string }) => x.name);
    for (const required of [
      'Cash-Secured Put', 'Covered Call', 'Naked Call', 'Naked Put', 'Long Call', 'Long Put', 'Buy-Write', 'PMCC',
      'Bull Put Spread', 'Bear Call Spread', 'Bull Call Spread', 'Bear Put Spread', 'Calendar Call Spread', 'Calendar Put Spread',
      'Long Straddle', 'Short Straddle', 'Long Strangle', 'Short Strangle', 'Iron Condor', 'Iron Butterfly',
    ]) expect(names).toContain(required);
    const bullPut = list.find((x: { uid: string }) => x.uid === 'bull-put-spread');
    expect(bullPut).toMatchObject({ strategy_group: 'Two-leg', transaction: 1, type: 2, legs_setup: { legs_count: 2 } });
    expect(bullPut.legs_setup.config[1].rules.strike).toEqual({ type: 'lower', other_leg_index: 0 });
  });

  it('answers 401 without a token and 403 for an unverified user', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/strategies/' })).statusCode).toBe(401);
    const u = await signInAs(t, { verified: false });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/strategies/', headers: { authorization: u.authorization } })).statusCode).toBe(403);
  });
});

describe('docs/strategies.md', () => {
  it('lists every strategy of the catalogue', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../../docs/strategies.md', import.meta.url), 'utf8');
    for (const s of strategyCatalogue) expect(doc, s.name).toContain(`| ${s.name} | \`${s.uid}\` | ${s.strategy_group} |`);
  });
});
