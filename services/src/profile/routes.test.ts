import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '@oj/infra/config';
import { MAX_PROFILE_IMAGE_BYTES, contactMessages, profileNameMessages, userImageMessages, usernameMessages, websiteMessages, profileMessages } from '@oj/contracts/users';
import { accountMessages } from '@oj/contracts/accounts';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ label: 'profile_routes', env: { SUPPORT_EMAIL: 'help@journal.test', RATE_LIMIT_CONTACT_PER_HOUR: '3' } });
});
afterAll(async () => {
  await t?.close();
});

const api = (path: string) => `/api/v1${path}`;
const patch = (authorization: string, payload: unknown) => t.app.inject({ method: 'PATCH', url: api('/users/update-profile'), headers: { authorization }, payload: payload as object });
const me = async (authorization: string) => (await t.app.inject({ method: 'GET', url: api('/users/current_user'), headers: { authorization } })).json();
const changesOf = (userId: string) => t.db.db.selectFrom('profile_changes').selectAll().where('user_uid', '=', userId).orderBy('id').execute();

describe('PATCH /users/update-profile: every rule of part 2 §5 with its message', () => {
  it.each([
    ['', profileNameMessages.required],
    ['   ', profileNameMessages.required],
    ['Al', profileNameMessages.min],
    ['Abcdefghij Klmnopqrstu', profileNameMessages.max],
    ['Jane_Doe', profileNameMessages.charset],
    ['Jane  Doe', profileNameMessages.repeated],
    ["Jane--Doe", profileNameMessages.repeated],
    ["Jane O''Neil", profileNameMessages.repeated],
    [' Jane Doe', profileNameMessages.edgeSpace],
    ['Jane Doe ', profileNameMessages.edgeSpace],
    ['Jane Doe2', profileNameMessages.numbersOrEmojis],
    ['Jane 😀 Doe', profileNameMessages.numbersOrEmojis],
  ])('name %j → %s', async (name, message) => {
    const s = await signInAs(t);
    const r = await patch(s.authorization, { name });
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toBe(message);
    expect(await changesOf(s.userId)).toEqual([]);
  });

  it.each([
    ['a', usernameMessages.min],
    ['abcdefghijklmnop', usernameMessages.max],
    ['jane-doe', usernameMessages.charset],
    ['jane doe', usernameMessages.charset],
    ['jane__doe', usernameMessages.consecutive],
    ['jane._doe', usernameMessages.consecutive],
    ['_jane', usernameMessages.edge],
    ['jane.', usernameMessages.edge],
    ['JaneDoe', usernameMessages.lowercase],
    ['admin', usernameMessages.reserved],
    ['support', usernameMessages.reserved],
    ['null', usernameMessages.reserved],
    ['undefined', usernameMessages.reserved],
    ['root', usernameMessages.reserved],
    ['Root', usernameMessages.lowercase],
  ])('username %j → %s', async (username, message) => {
    const s = await signInAs(t);
    const r = await patch(s.authorization, { username });
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toBe(message);
  });

  it.each([
    ['abc', websiteMessages.min],
    ['abcdefghijklmnopqrstu', websiteMessages.max],
    ['my site.com', websiteMessages.charset],
    ['ab\u0007c.com', websiteMessages.charset],
  ])('website %j → %s', async (website, message) => {
    const s = await signInAs(t);
    const r = await patch(s.authorization, { website });
    expect(r.statusCode).toBe(422);
    expect(r.json().message).toBe(message);
  });

  it('refuses an empty change and wrong types with a 422, never a 500', async () => {
    const s = await signInAs(t);
    expect((await patch(s.authorization, {})).json()).toMatchObject({ message: profileMessages.nothingToUpdate });
    for (const body of [{ name: 5 }, { username: ['a'] }, { website: { x: 1 } }, { name: null }]) {
      expect((await patch(s.authorization, body)).statusCode).toBe(422);
    }
  });

  it('one bad field refuses the whole request: nothing is half-written', async () => {
    const s = await signInAs(t, { name: 'Half Written' });
    const r = await patch(s.authorization, { name: 'New Name', website: 'x' });
    expect(r.statusCode).toBe(422);
    expect((await me(s.authorization)).name).toBe('Half Written');
  });

  it('applies only the changed fields and records each change with who, when, old and new value', async () => {
    const s = await signInAs(t, { name: 'Jane Trader' });
    const r = await patch(s.authorization, { name: "Mary-Jane O'Neil", username: 'jane.t_99', website: 'janetrades.com' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ name: "Mary-Jane O'Neil", username: 'jane.t_99', website: 'janetrades.com' });
    expect(await me(s.authorization)).toMatchObject({ name: "Mary-Jane O'Neil", username: 'jane.t_99', website: 'janetrades.com' });
    const changes = await changesOf(s.userId);
    expect(changes.map((c) => [c.field, c.old_value, c.new_value, c.changed_by])).toEqual([
      ['name', 'Jane Trader', "Mary-Jane O'Neil", s.userId],
      ['username', null, 'jane.t_99', s.userId],
      ['website', null, 'janetrades.com', s.userId],
    ]);
    expect(changes.every((c) => (c.changed_at as Date).toISOString() === t.clock.now().toISOString())).toBe(true);

    // The same values again change nothing and record nothing; '' clears the optional fields.
    t.clock.advance(1000);
    expect((await patch(s.authorization, { name: "Mary-Jane O'Neil" })).statusCode).toBe(200);
    expect(await changesOf(s.userId)).toHaveLength(3);
    const cleared = await patch(s.authorization, { username: '', website: null });
    expect(cleared.json()).toMatchObject({ username: null, website: null });
    expect((await changesOf(s.userId)).slice(3).map((c) => [c.field, c.old_value, c.new_value])).toEqual([
      ['username', 'jane.t_99', null],
      ['website', 'janetrades.com', null],
    ]);
  });

  it('the change history is append-only for every writer', async () => {
    const s = await signInAs(t);
    await patch(s.authorization, { website: 'first.com' });
    await expect(t.db.db.updateTable('profile_changes').set({ new_value: 'forged' }).where('user_uid', '=', s.userId).execute()).rejects.toThrow(/append-only/);
    await expect(t.db.db.deleteFrom('profile_changes').where('user_uid', '=', s.userId).execute()).rejects.toThrow(/append-only/);
    expect((await changesOf(s.userId))[0]?.new_value).toBe('first.com');
  });

  it('a username is unique: a second claimant gets a 409 with a clear message; the owner may keep it', async () => {
    const a = await signInAs(t);
    const b = await signInAs(t);
    expect((await patch(a.authorization, { username: 'thetaqueen' })).statusCode).toBe(200);
    const taken = await patch(b.authorization, { username: 'thetaqueen' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toBe(usernameMessages.taken);
    expect((await patch(a.authorization, { username: 'thetaqueen', name: 'Theta Queen' })).statusCode).toBe(200);
    // Two at once: exactly one wins (the unique index settles the race).
    const [x, y] = await Promise.all([patch(a.authorization, { username: 'gammaray' }), patch(b.authorization, { username: 'gammaray' })]);
    expect([x.statusCode, y.statusCode].sort()).toEqual([200, 409]);
  });

  it('isolation: a user changes only their own profile; anonymous and unverified callers are refused', async () => {
    const a = await signInAs(t, { name: 'Alice Able' });
    const b = await signInAs(t, { name: 'Bob Baker' });
    await patch(a.authorization, { name: 'Alice Changed', uid: b.userId });
    expect((await me(b.authorization)).name).toBe('Bob Baker');
    expect(await changesOf(b.userId)).toEqual([]);
    expect((await t.app.inject({ method: 'PATCH', url: api('/users/update-profile'), payload: { name: 'Nobody Here' } })).statusCode).toBe(401);
    const unverified = await signInAs(t, { verified: false });
    expect((await patch(unverified.authorization, { name: 'Not Verified' })).statusCode).toBe(403);
  });
});

describe('POST /users/user-image', () => {
  const upload = (authorization: string, payload: unknown) => t.app.inject({ method: 'POST', url: api('/users/user-image'), headers: { authorization }, payload: payload as object });

  it('decodes, resizes to 600 px, re-encodes without metadata, stores under DATA_DIR/uploads and serves it with caching headers', async () => {
    const s = await signInAs(t);
    const png = await sharp({ create: { width: 1800, height: 900, channels: 3, background: '#3366cc' } })
      .withMetadata({ exif: { IFD0: { Copyright: 'secret-place', Artist: 'someone' } } })
      .png()
      .toBuffer();
    const r = await upload(s.authorization, { image: `data:image/png;base64,${png.toString('base64')}`, image_for: 'avatar' });
    expect(r.statusCode).toBe(200);
    const { image_url, url, image_for } = r.json();
    expect(image_for).toBe('avatar');
    expect(url).toBe(image_url);
    expect(url).toMatch(/^\/api\/v1\/uploads\/avatar-[A-Za-z0-9_-]+\.jpg$/);
    const file = url.split('/').at(-1);
    const stored = await readFile(join(t.dataDir, 'uploads', file));
    const meta = await sharp(stored).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['jpeg', 600, 300, undefined]);
    expect(stored.includes(Buffer.from('secret-place'))).toBe(false);

    const served = await t.app.inject({ method: 'GET', url });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.rawPayload.equals(stored)).toBe(true);

    expect((await me(s.authorization)).avatar).toBe(url);
    t.clock.advance(1000);
    const cover = await upload(s.authorization, { image: png.toString('base64'), image_for: 'cover' });
    expect((await me(s.authorization)).bg_image).toBe(cover.json().url);
    expect((await changesOf(s.userId)).map((c) => [c.field, c.old_value, c.new_value])).toEqual([
      ['avatar', null, url],
      ['cover', null, cover.json().url],
    ]);
  });

  it('a replaced avatar or cover is no longer served at its old URL; the new one is (QA: privacy)', async () => {
    const s = await signInAs(t);
    const picture = async (colour: string) => (await sharp({ create: { width: 50, height: 50, channels: 3, background: colour } }).png().toBuffer()).toString('base64');
    for (const image_for of ['avatar', 'cover'] as const) {
      const first = await upload(s.authorization, { image: await picture('#112233'), image_for });
      expect(first.statusCode, first.body).toBe(200);
      const old = first.json().url as string;
      expect((await t.app.inject({ method: 'GET', url: old })).statusCode).toBe(200);
      const second = await upload(s.authorization, { image: await picture('#445566'), image_for });
      expect(second.statusCode, second.body).toBe(200);
      const now = second.json().url as string;
      expect(now).not.toBe(old);
      expect((await t.app.inject({ method: 'GET', url: old })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: now })).statusCode).toBe(200);
      // A refused upload changes nothing: the current picture is still served.
      expect((await upload(s.authorization, { image: Buffer.from('not pixels').toString('base64'), image_for })).statusCode).toBe(415);
      expect((await t.app.inject({ method: 'GET', url: now })).statusCode).toBe(200);
    }
    const profile = await me(s.authorization);
    expect([(await t.app.inject({ method: 'GET', url: profile.avatar })).statusCode, (await t.app.inject({ method: 'GET', url: profile.bg_image })).statusCode]).toEqual([200, 200]);
  });

  it('refuses a non-image (415), an oversized file (413) and a bad image_for (422) with their reasons; the profile keeps its picture', async () => {
    const s = await signInAs(t);
    const text = await upload(s.authorization, { image: Buffer.from('just some text, not pixels').toString('base64'), image_for: 'avatar' });
    expect(text.statusCode).toBe(415);
    expect(text.json().message).toBe(accountMessages.notAnImage);
    const svg = await upload(s.authorization, { image: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>').toString('base64'), image_for: 'cover' });
    expect(svg.statusCode).toBe(415);
    // A real picture, just over the limit: refused before it is decoded.
    const noisy = await sharp(Buffer.from(Array.from({ length: 1400 * 1400 * 3 }, (_, i) => (i * 7919) % 251)), { raw: { width: 1400, height: 1400, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
    expect(noisy.length).toBeGreaterThan(MAX_PROFILE_IMAGE_BYTES);
    const big = await upload(s.authorization, { image: noisy.toString('base64'), image_for: 'avatar' });
    expect(big.statusCode).toBe(413);
    expect(big.json().message).toBe(userImageMessages.tooLarge);
    // Beyond the gateway's body limit: still a 413, never a 500.
    expect((await upload(s.authorization, { image: 'A'.repeat(9 * 1024 * 1024), image_for: 'avatar' })).statusCode).toBe(413);
    const kind = await upload(s.authorization, { image: 'AAAA', image_for: 'account' });
    expect(kind.statusCode).toBe(422);
    expect((await upload(s.authorization, { image: '', image_for: 'avatar' })).statusCode).toBe(422);
    expect(await me(s.authorization)).toMatchObject({ avatar: null, bg_image: null });
    expect(await changesOf(s.userId)).toEqual([]);
    expect((await t.app.inject({ method: 'POST', url: api('/users/user-image'), payload: { image: 'AAAA', image_for: 'avatar' } })).statusCode).toBe(401);
  });
});

describe('POST /users/contact-us', () => {
  const contact = (authorization: string, payload: unknown) => t.app.inject({ method: 'POST', url: api('/users/contact-us'), headers: { authorization }, payload: payload as object });

  it.each([{}, { subject: 'Hi' }, { message: 'Hello' }, { subject: '  ', message: 'Hello' }, { subject: 'Hi', message: '\n \t' }, { subject: 5, message: 'x' }])(
    'refuses %j with "Both Subject and Message fields are required."',
    async (payload) => {
      const s = await signInAs(t);
      const r = await contact(s.authorization, payload);
      expect(r.statusCode).toBe(422);
      expect(r.json().message).toBe(contactMessages.required);
    },
  );

  it('stores the message and queues a mail to SUPPORT_EMAIL with the user id and e-mail', async () => {
    const s = await signInAs(t, { name: 'Carol Contact' });
    const r = await contact(s.authorization, { subject: ' Roll question ', message: 'How do I roll\na partial position?' });
    expect(r.statusCode).toBe(201);
    expect(r.json().message).toBe('Form submitted successfully!');
    const stored = await t.db.db.selectFrom('contact_messages').selectAll().where('user_uid', '=', s.userId).execute();
    expect(stored.map((m) => [m.subject, m.message, m.user_email, m.user_name])).toEqual([['Roll question', 'How do I roll\na partial position?', s.email, 'Carol Contact']]);
    const mail = await t.db.db.selectFrom('mail_outbox').selectAll().where('id', '=', stored[0]!.mail_id).executeTakeFirstOrThrow();
    expect(mail.to_address).toBe('help@journal.test');
    expect(mail.subject).toBe('[Contact] Roll question');
    expect(mail.text_body).toContain(`User id: ${s.userId}`);
    expect(mail.text_body).toContain(s.email);
    expect(mail.text_body).toContain('How do I roll\na partial position?');
    // A reply goes to the user ("we answer by e-mail").
    expect(mail.reply_to).toBe(s.email);
  });

  it("keeps a subject's typed line breaks out of the mail's header and its header lines (QA)", async () => {
    const s = await signInAs(t);
    expect((await contact(s.authorization, { subject: 'Roll\nBcc: evil@example.com', message: 'Hi' })).statusCode).toBe(201);
    const stored = await t.db.db.selectFrom('contact_messages').select('mail_id').where('user_uid', '=', s.userId).executeTakeFirstOrThrow();
    const mail = await t.db.db.selectFrom('mail_outbox').selectAll().where('id', '=', stored.mail_id).executeTakeFirstOrThrow();
    expect(mail.subject).toBe('[Contact] Roll Bcc: evil@example.com');
    expect(mail.text_body).toContain('Subject: Roll Bcc: evil@example.com');
    expect(mail.text_body).not.toMatch(/^Bcc:/m);
  });

  it('is rate-limited per user (the limit of one user does not touch another)', async () => {
    const a = await signInAs(t);
    const b = await signInAs(t);
    for (let i = 0; i < 3; i++) expect((await contact(a.authorization, { subject: `S${i}`, message: 'M' })).statusCode).toBe(201);
    const refused = await contact(a.authorization, { subject: 'S4', message: 'M' });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await contact(b.authorization, { subject: 'S', message: 'M' })).statusCode).toBe(201);
    const count = await t.db.db.selectFrom('contact_messages').select((eb) => eb.fn.countAll().as('n')).where('user_uid', '=', a.userId).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(3);
  });

  it('support staff list and read messages and profile history; users cannot', async () => {
    const user = await signInAs(t, { name: 'Dana Sender' });
    await contact(user.authorization, { subject: 'Export', message: 'Where is the CSV export?' });
    await patch(user.authorization, { website: 'dana.io' });
    const admin = await signInAs(t, { role: 'Admin' });
    const support = await signInAs(t, { role: 'Support' });
    for (const staff of [admin, support]) {
      const list = await t.app.inject({ method: 'GET', url: api('/admin/messages?size=100'), headers: { authorization: staff.authorization } });
      expect(list.statusCode).toBe(200);
      const item = list.json().items.find((m: { user_uid: string }) => m.user_uid === user.userId);
      expect(item).toMatchObject({ subject: 'Export', preview: 'Where is the CSV export?', user_email: user.email, user_name: 'Dana Sender', mailed: true });
      const one = await t.app.inject({ method: 'GET', url: api(`/admin/messages/${item.id}`), headers: { authorization: staff.authorization } });
      expect(one.json().message).toBe('Where is the CSV export?');
      const history = await t.app.inject({ method: 'GET', url: api(`/admin/users/${user.userId}/profile-changes`), headers: { authorization: staff.authorization } });
      expect(history.json()).toMatchObject([{ field: 'website', old_value: null, new_value: 'dana.io', changed_by: user.userId }]);
    }
    const messageId = (await t.db.db.selectFrom('contact_messages').select('id').where('user_uid', '=', user.userId).executeTakeFirstOrThrow()).id as string;
    // A trader reads no message by its id, not even their own, nor another trader's.
    const trader = await signInAs(t);
    for (const path of ['/admin/messages', `/admin/messages/${messageId}`, `/admin/users/${user.userId}/profile-changes`]) {
      expect((await t.app.inject({ method: 'GET', url: api(path), headers: { authorization: user.authorization } })).statusCode).toBe(403);
      expect((await t.app.inject({ method: 'GET', url: api(path), headers: { authorization: trader.authorization } })).statusCode).toBe(403);
      expect((await t.app.inject({ method: 'GET', url: api(path) })).statusCode).toBe(401);
    }
    const missing = await t.app.inject({ method: 'GET', url: api('/admin/messages/not-a-uuid'), headers: { authorization: admin.authorization } });
    expect(missing.statusCode).toBe(422);
    const gone = await t.app.inject({ method: 'GET', url: api('/admin/messages/0190b7a2-0000-7000-8000-000000000000'), headers: { authorization: admin.authorization } });
    expect(gone.statusCode).toBe(404);
  });
});

describe('console configuration', () => {
  it('has no logo URL unless the operator sets one', async () => {
    const r = await t.app.inject({ method: 'GET', url: api('/console-config') });
    expect(r.json()).toEqual({ ticker_logo_url: null, billing: 'stripe' });
    // Without a Stripe key the installation is self-hosted: the console offers no trial.
    const withLogos = await createTestApp({ label: 'profile_cfg', pglite: true, env: { TICKER_LOGO_URL: 'https://logos.example.com/{ticker}.png', STRIPE_SECRET_KEY: '' } });
    try {
      expect((await withLogos.app.inject({ method: 'GET', url: api('/console-config') })).json()).toEqual({ ticker_logo_url: 'https://logos.example.com/{ticker}.png', billing: 'self-hosted' });
      // Without SUPPORT_EMAIL a message is stored and not mailed.
      const s = await signInAs(withLogos);
      await withLogos.app.inject({ method: 'POST', url: api('/users/contact-us'), headers: { authorization: s.authorization }, payload: { subject: 'a', message: 'b' } });
      const row = await withLogos.db.db.selectFrom('contact_messages').selectAll().executeTakeFirstOrThrow();
      expect(row.mail_id).toBeNull();
      expect(await withLogos.db.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'contact').execute()).toEqual([]);
    } finally {
      await withLogos.close();
    }
  });

  it('refuses a logo template that is not https or has no {ticker}, and a bad support address', () => {
    expect(() => loadConfig({ TICKER_LOGO_URL: 'http://logos.example.com/{ticker}.png', JWT_SECRET: 'x'.repeat(32) })).toThrow(/TICKER_LOGO_URL/);
    expect(() => loadConfig({ TICKER_LOGO_URL: 'https://logos.example.com/logo.png', JWT_SECRET: 'x'.repeat(32) })).toThrow(/TICKER_LOGO_URL/);
    expect(() => loadConfig({ SUPPORT_EMAIL: 'not an address', JWT_SECRET: 'x'.repeat(32) })).toThrow(/SUPPORT_EMAIL/);
  });
});

describe('the profile answer is the session user, in either billing mode', () => {
  it.each([
    ['self-hosted (no Stripe key)', { STRIPE_SECRET_KEY: '' }],
    ['Stripe', {}],
  ] as const)('%s: it equals GET /users/current_user', async (_, env) => {
    // A trial that ended long ago: in self-hosted mode the user is active all the same.
    const app = await createTestApp({ label: 'profile_billing_mode', env, now: '2026-03-02T15:00:00Z' });
    try {
      const s = await signInAs(app);
      app.clock.advance(90 * 86_400_000);
      const login = await app.app.inject({ method: 'POST', url: api('/users/login'), payload: { email: s.email, password: s.password } });
      const authorization = `Bearer ${login.json().access_token}`;
      const updated = await app.app.inject({ method: 'PATCH', url: api('/users/update-profile'), headers: { authorization }, payload: { name: 'Renamed Trader' } });
      expect(updated.statusCode, updated.body).toBe(200);
      const current = await app.app.inject({ method: 'GET', url: api('/users/current_user'), headers: { authorization } });
      expect(updated.json()).toEqual(current.json());
    } finally {
      await app.close();
    }
  });
});
