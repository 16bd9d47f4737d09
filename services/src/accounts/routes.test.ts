import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { accountMessages, brokerages, accountTypes } from '@oj/contracts/accounts';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { findAccountOfUser } from './queries.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ label: 'accounts_routes' });
});
afterAll(async () => {
  await t?.close();
});

const api = (path: string) => `/api/v1${path}`;
const body = (over: Record<string, unknown> = {}) => ({ name: 'Main', broker: 'schwab', ac_type: 2, ...over });

async function add(authorization: string, over: Record<string, unknown> = {}) {
  return t.app.inject({ method: 'POST', url: api('/accounts/add-account'), headers: { authorization }, payload: body(over) });
}
const list = async (authorization: string) => (await t.app.inject({ method: 'GET', url: api('/accounts/'), headers: { authorization } })).json();

async function expireTrial(userId: string) {
  await t.db.db.updateTable('subscriptions').set({ current_period_end: new Date(t.clock.now().getTime() - 1000) }).where('user_uid', '=', userId).execute();
  // Behind the gateway's back: wait until its principal cache has heard of the change.
  await t.app.principals.settled();
}

describe('trade accounts', () => {
  it('lists ten brokerages including Other and six account types', () => {
    expect(brokerages).toHaveLength(10);
    expect(brokerages.map((b) => b.name)).toContain('Other');
    expect(accountTypes.map((a) => `${a.code} ${a.label}`)).toEqual(['1 Cash', '2 Margin', '3 IRA', '4 403(b)', '5 401(k)', '6 Roth IRA']);
  });

  it('adds accounts with default commission and fee; the first is the default; has_trade_account flips', async () => {
    const s = await signInAs(t);
    expect(await list(s.authorization)).toEqual([]);
    const first = await add(s.authorization);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ name: 'Main', broker: 'schwab', ac_type: 2, broker_commission: 0.65, broker_fee: 0.03, bg_image: null, default_account: true });
    const second = await add(s.authorization, { name: 'IRA', ac_type: 3, broker: 'other', broker_commission: 0, broker_fee: 0.1 });
    expect(second.json()).toMatchObject({ default_account: false, broker_commission: 0, broker_fee: 0.1 });
    const me = await t.app.inject({ method: 'GET', url: api('/users/current_user'), headers: { authorization: s.authorization } });
    expect(me.json().has_trade_account).toBe(true);
    expect((await list(s.authorization)).map((a: { name: string }) => a.name)).toEqual(['Main', 'IRA']);
  });

  it.each([
    [{ name: '   ' }, accountMessages.nameRequired],
    [{ name: undefined }, accountMessages.nameRequired],
    [{ ac_type: undefined }, accountMessages.typeRequired],
    [{ ac_type: 9 }, accountMessages.typeRequired],
    [{ broker: undefined }, accountMessages.brokerageRequired],
    [{ broker: 'nope' }, accountMessages.brokerageRequired],
    [{ broker_commission: -1 }, accountMessages.commission],
    [{ broker_commission: 'x' }, accountMessages.commission],
    [{ broker_fee: -0.01 }, accountMessages.fee],
    [{ broker_fee: null }, accountMessages.fee],
  ])('refuses %j with the spec message', async (over, message) => {
    const s = await signInAs(t);
    const res = await add(s.authorization, over);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe(message);
  });

  it('keeps at most 10 accounts, also under concurrent requests', async () => {
    const s = await signInAs(t);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => add(s.authorization, { name: `A${i}` })));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.statusCode !== 201);
    expect(refused.map((r) => [r.statusCode, r.json().message])).toEqual([
      [409, accountMessages.limit],
      [409, accountMessages.limit],
    ]);
    const accounts = await list(s.authorization);
    expect(accounts).toHaveLength(10);
    expect(accounts.filter((a: { default_account: boolean }) => a.default_account)).toHaveLength(1);
  });

  it('gives each of a user\'s accounts its own name (case aside), also under concurrent requests; another user may use it', async () => {
    const s = await signInAs(t);
    const results = await Promise.all(['Main Schwab', 'main schwab', 'MAIN SCHWAB '].map((name) => add(s.authorization, { name })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    expect(results.filter((r) => r.statusCode === 409).map((r) => r.json().message)).toEqual([accountMessages.nameTaken, accountMessages.nameTaken]);
    const ira = (await add(s.authorization, { name: 'IRA' })).json();
    const rename = (name: string) => t.app.inject({ method: 'PATCH', url: api(`/accounts/update/${ira.uid}`), headers: { authorization: s.authorization }, payload: { name } });
    const taken = await rename('Main schwab');
    expect([taken.statusCode, taken.json().message]).toEqual([409, accountMessages.nameTaken]);
    expect((await list(s.authorization)).map((a: { name: string }) => a.name).sort()).toEqual(['IRA', results.find((r) => r.statusCode === 201)!.json().name].sort());
    // Its own name again (another letter case) is no clash; another user's accounts are not looked at.
    expect((await rename('ira')).statusCode).toBe(200);
    const other = await signInAs(t);
    expect((await add(other.authorization, { name: 'Main Schwab' })).statusCode).toBe(201);
  });

  it('updates only the given fields', async () => {
    const s = await signInAs(t);
    const { uid } = (await add(s.authorization)).json();
    const res = await t.app.inject({ method: 'PATCH', url: api(`/accounts/update/${uid}`), headers: { authorization: s.authorization }, payload: { name: 'Renamed', broker_fee: 0 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ uid, name: 'Renamed', broker: 'schwab', broker_fee: 0, broker_commission: 0.65 });
    const bad = await t.app.inject({ method: 'PATCH', url: api(`/accounts/update/${uid}`), headers: { authorization: s.authorization }, payload: { name: '' } });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toBe(accountMessages.nameRequired);
  });

  it('moves the default', async () => {
    const s = await signInAs(t);
    const a = (await add(s.authorization, { name: 'A' })).json();
    const b = (await add(s.authorization, { name: 'B' })).json();
    const res = await t.app.inject({ method: 'PATCH', url: api('/accounts/update-default-account'), headers: { authorization: s.authorization }, payload: { old_default: a.uid, new_default: b.uid } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ uid: b.uid, default_account: true });
    const accounts = await list(s.authorization);
    expect(accounts.map((x: { name: string; default_account: boolean }) => [x.name, x.default_account])).toEqual([
      ['B', true],
      ['A', false],
    ]);
    // A field left out is named (QA: zod's "Invalid input: expected string, received undefined").
    const empty = await t.app.inject({ method: 'PATCH', url: api('/accounts/update-default-account'), headers: { authorization: s.authorization }, payload: {} });
    expect([empty.statusCode, empty.json().message]).toEqual([422, 'old_default is required.']);
    expect(empty.json().detail).toEqual([
      { field: 'body.old_default', message: 'old_default is required.' },
      { field: 'body.new_default', message: 'new_default is required.' },
    ]);
  });

  it("never shows or changes another user's account (404)", async () => {
    const owner = await signInAs(t);
    const other = await signInAs(t);
    const acc = (await add(owner.authorization)).json();
    const own = (await add(other.authorization)).json();
    expect(await list(other.authorization)).toEqual([own]);
    const h = { authorization: other.authorization };
    const update = await t.app.inject({ method: 'PATCH', url: api(`/accounts/update/${acc.uid}`), headers: h, payload: { name: 'Mine now' } });
    expect(update.statusCode).toBe(404);
    expect(update.json().message).toBe(accountMessages.notFound);
    const def = await t.app.inject({ method: 'PATCH', url: api('/accounts/update-default-account'), headers: h, payload: { old_default: own.uid, new_default: acc.uid } });
    expect(def.statusCode).toBe(404);
    const img = await t.app.inject({ method: 'POST', url: api(`/accounts/account-image/${acc.uid}`), headers: h, payload: { image: 'aGVsbG8=', image_for: 'account' } });
    expect(img.statusCode).toBe(404);
    expect((await t.app.inject({ method: 'PATCH', url: api('/accounts/update/not-a-uuid'), headers: h, payload: { name: 'x' } })).statusCode).toBe(404);
    expect(await findAccountOfUser(t.db.db, other.userId, acc.uid)).toBeUndefined();
    expect(await findAccountOfUser(t.db.db, owner.userId, acc.uid)).toMatchObject({ uid: acc.uid, name: 'Main' });
    expect(await list(owner.authorization)).toEqual([acc]);
  });

  it("update-default-account naming another user's account as old_default is a 404 and changes no one's default", async () => {
    const owner = await signInAs(t);
    const other = await signInAs(t);
    const ownerDefault = (await add(owner.authorization)).json();
    const ownerSecond = (await add(owner.authorization, { name: 'Second' })).json();
    const otherFirst = (await add(other.authorization)).json();
    const otherSecond = (await add(other.authorization, { name: 'Second' })).json();
    const ownerBefore = await list(owner.authorization);
    const otherBefore = await list(other.authorization);
    expect(ownerBefore.find((a: { uid: string }) => a.uid === ownerDefault.uid).default_account).toBe(true);
    const h = { authorization: other.authorization };
    for (const payload of [
      { old_default: ownerDefault.uid, new_default: otherSecond.uid },
      { old_default: ownerDefault.uid, new_default: ownerSecond.uid },
      { old_default: otherFirst.uid, new_default: ownerSecond.uid },
    ]) {
      const r = await t.app.inject({ method: 'PATCH', url: api('/accounts/update-default-account'), headers: h, payload });
      expect([r.statusCode, r.json().message]).toEqual([404, accountMessages.notFound]);
    }
    expect(await list(owner.authorization)).toEqual(ownerBefore);
    expect(await list(other.authorization)).toEqual(otherBefore);
  });

  it('blocks add, edit, default and image when the subscription has expired (403); listing still works', async () => {
    const s = await signInAs(t);
    const a = (await add(s.authorization)).json();
    await expireTrial(s.userId);
    const h = { authorization: s.authorization };
    const responses = [
      await add(s.authorization),
      await t.app.inject({ method: 'PATCH', url: api(`/accounts/update/${a.uid}`), headers: h, payload: { name: 'X' } }),
      await t.app.inject({ method: 'PATCH', url: api('/accounts/update-default-account'), headers: h, payload: { old_default: a.uid, new_default: a.uid } }),
      await t.app.inject({ method: 'POST', url: api(`/accounts/account-image/${a.uid}`), headers: h, payload: { image: 'aGVsbG8=' } }),
    ];
    for (const r of responses) {
      expect(r.statusCode).toBe(403);
      expect(r.json().message).toBe(accountMessages.subscriptionExpired);
    }
    expect(await list(s.authorization)).toHaveLength(1);
  });

  it('staff roles manage accounts whatever their subscription', async () => {
    const admin = await signInAs(t, { role: 'Admin' });
    await expireTrial(admin.userId);
    expect((await add(admin.authorization)).statusCode).toBe(201);
  });

  it('answers 401 without a token and 403 unverified on every account endpoint', async () => {
    const unverified = await signInAs(t, { verified: false });
    const calls = [
      { method: 'GET' as const, url: api('/accounts/') },
      { method: 'POST' as const, url: api('/accounts/add-account'), payload: body() },
      { method: 'PATCH' as const, url: api('/accounts/update/00000000-0000-7000-8000-000000000000'), payload: { name: 'x' } },
      { method: 'PATCH' as const, url: api('/accounts/update-default-account'), payload: { old_default: 'a', new_default: 'b' } },
      { method: 'POST' as const, url: api('/accounts/account-image/00000000-0000-7000-8000-000000000000'), payload: { image: 'aGVsbG8=' } },
    ];
    for (const c of calls) {
      expect((await t.app.inject(c)).statusCode, c.url).toBe(401);
      expect((await t.app.inject({ ...c, headers: { authorization: unverified.authorization } })).statusCode, c.url).toBe(403);
    }
  });
});

describe('cover images', () => {
  const upload = (authorization: string, uid: string, image: string) =>
    t.app.inject({ method: 'POST', url: api(`/accounts/account-image/${uid}`), headers: { authorization }, payload: { image, image_for: 'account' } });

  it('resizes to 1200 px on the longest side as JPEG, stores it and serves it back by URL', async () => {
    const s = await signInAs(t);
    const { uid } = (await add(s.authorization)).json();
    const png = await sharp({ create: { width: 3000, height: 1500, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const res = await upload(s.authorization, uid, `data:image/png;base64,${png.toString('base64')}`);
    expect(res.statusCode).toBe(200);
    const { url } = res.json();
    expect(url).toMatch(/^\/api\/v1\/uploads\/account-[A-Za-z0-9_-]+\.jpg$/);
    expect((await list(s.authorization))[0].bg_image).toBe(url);
    const served = await t.app.inject({ method: 'GET', url });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(served.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1200, 600]);
  });

  it('keeps small images at their size', async () => {
    const s = await signInAs(t);
    const { uid } = (await add(s.authorization)).json();
    const jpg = await sharp({ create: { width: 400, height: 800, channels: 3, background: '#cc3366' } }).jpeg().toBuffer();
    const { url } = (await upload(s.authorization, uid, jpg.toString('base64'))).json();
    const meta = await sharp((await t.app.inject({ method: 'GET', url })).rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([400, 800]);
  });

  it('refuses anything that is not an image with a clear 4xx', async () => {
    const s = await signInAs(t);
    const { uid } = (await add(s.authorization)).json();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>').toString('base64');
    for (const image of [Buffer.from('just some text, not a picture').toString('base64'), svg, '%%%not base64%%%', Buffer.from('%PDF-1.7 fake').toString('base64')]) {
      const res = await upload(s.authorization, uid, image);
      expect(res.statusCode).toBe(415);
      expect(res.json().message).toBe(accountMessages.notAnImage);
    }
    const empty = await upload(s.authorization, uid, '');
    expect(empty.statusCode).toBe(422);
    expect(empty.json().message).toBe(accountMessages.imageMissing);
    expect((await list(s.authorization))[0].bg_image).toBeNull();
  });

  it('a real picture over the pixel limit is called too large, not "not an image" (QA: a 12000 x 12000 PNG of 450 KB)', async () => {
    const s = await signInAs(t);
    const { uid } = (await add(s.authorization)).json();
    const huge = await sharp({ create: { width: 12_000, height: 12_000, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const res = await upload(s.authorization, uid, huge.toString('base64'));
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe(accountMessages.imageTooManyPixels);
    expect((await list(s.authorization))[0].bg_image).toBeNull();
  });

  it("a replaced cover is no longer served at its old URL; the new one is, and another user's upload changes nothing of it (QA: privacy)", async () => {
    const s = await signInAs(t);
    const other = await signInAs(t);
    const { uid } = (await add(s.authorization)).json();
    const picture = async (colour: string) => (await sharp({ create: { width: 50, height: 50, channels: 3, background: colour } }).png().toBuffer()).toString('base64');
    const old = (await upload(s.authorization, uid, await picture('#112233'))).json().url as string;
    expect((await t.app.inject({ method: 'GET', url: old })).statusCode).toBe(200);
    const replaced = await upload(s.authorization, uid, await picture('#445566'));
    expect(replaced.statusCode, replaced.body).toBe(200);
    const now = replaced.json().url as string;
    expect((await t.app.inject({ method: 'GET', url: old })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: now })).statusCode).toBe(200);
    // Another user's upload to this account is refused and removes nothing.
    expect((await upload(other.authorization, uid, await picture('#778899'))).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: now })).statusCode).toBe(200);
    expect((await list(s.authorization))[0].bg_image).toBe(now);
  });

  it('serves nothing outside the uploads directory', async () => {
    for (const file of ['..%2F..%2Fetc%2Fpasswd', 'account-nope.jpg', 'jwt-secret']) {
      expect((await t.app.inject({ method: 'GET', url: api(`/uploads/${file}`) })).statusCode).toBe(404);
    }
  });
});
