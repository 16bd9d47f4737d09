import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DIRECTION_CONTROL_MESSAGE, UNSTORABLE_TEXT_MESSAGE as NUL_TEXT_MESSAGE } from '@oj/contracts/common';
import { emailMessages } from '@oj/contracts/users';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';

/**
 * NUL in any string, and look-alike e-mail addresses, are refused once at the gateway's contract layer
 * (issue 17, "found already, tried as an attacker would"). The routes and their parameters are read from
 * the OpenAPI document, so a route added later is covered without touching this file.
 */

let t: TestApp;
let user: Awaited<ReturnType<typeof signInAs>>;
beforeAll(async () => {
  t = await createTestApp({ label: 'input_hygiene' });
  user = await signInAs(t);
});
afterAll(async () => {
  await t?.close();
});

const NUL = '\u0000';
const eventCount = async () => Number((await sql<{ n: string }>`select count(*) as n from events`.execute(t.db.db)).rows[0]?.n ?? 0);

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyFields: string[];
}

function operations(): Operation[] {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>> };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const body = op.requestBody?.content?.['application/json']?.schema?.properties ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyFields: Object.keys(body),
      });
    }
  }
  return ops;
}

const fill = (path: string, values: Record<string, string>) => path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x'));

describe('NUL (and unpaired surrogates) in any string parameter', () => {
  it('the OpenAPI document lists the routes the issue names', () => {
    const paths = operations().map((o) => `${o.method} ${o.path}`);
    expect(paths).toEqual(expect.arrayContaining(['GET /api/v1/trades/status/{status}', 'GET /api/v1/trades/expiring', 'GET /api/v1/trades/{uid}/roll-history', 'POST /api/v1/users/signup']));
  });

  it('is a 422 naming the field on every route, path, query and body alike, and appends nothing', async () => {
    const before = await eventCount();
    const failures: string[] = [];
    for (const op of operations()) {
      const cases: { where: string; url: string; payload?: Record<string, unknown> }[] = [];
      for (const name of op.pathParams) cases.push({ where: `params.${name}`, url: fill(op.path, { [name]: `a${NUL}b` }) });
      for (const name of op.queryParams) cases.push({ where: `querystring.${name}`, url: `${fill(op.path, {})}?${name}=${encodeURIComponent(`a${NUL}b`)}` });
      if (op.method !== 'GET' && op.method !== 'DELETE') {
        for (const name of op.bodyFields) cases.push({ where: `body.${name}`, url: fill(op.path, {}), payload: { [name]: `a${NUL}b` } });
      }
      for (const c of cases) {
        const res = await t.app.inject({ method: op.method as 'GET', url: c.url, headers: { authorization: user.authorization }, ...(c.payload ? { payload: c.payload } : {}) });
        // An earlier guard (no token for that role, a route that does not exist for this id shape) may
        // answer first with its own 4xx; what must never happen is a 5xx or a success.
        if (res.statusCode >= 500 || res.statusCode < 400) failures.push(`${op.method} ${c.url} (${c.where}): ${res.statusCode} ${res.body.slice(0, 120)}`);
        else if (res.statusCode === 422 && res.json().message === NUL_TEXT_MESSAGE) expect(res.json().detail).toEqual([{ field: c.where, message: NUL_TEXT_MESSAGE }]);
      }
    }
    expect(failures).toEqual([]);
    expect(await eventCount()).toBe(before);
  });

  it('a path that is not valid percent-encoded UTF-8 is a 400 in the product\'s error shape, not Fastify\'s own (QA)', async () => {
    for (const url of ['/api/v1/trades/%ED%A0%80/history', '/api/v1/audit/users/%ED%A0%80?reason=abc', '/api/v1/trades/%E0%A4%A/roll-history']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: user.authorization } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ message: 'The address is not valid: a part of its path is not a valid percent-encoded UTF-8 text.' });
      expect(Object.keys(res.json()).filter((k) => !['message', 'detail', 'resolution'].includes(k)), url).toEqual([]);
    }
  });

  it('a long path parameter reaches its route, whose rule answers, not "Route … not found" (QA)', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/trades/${'9'.repeat(120)}/roll-history`, headers: { authorization: user.authorization } });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe('Invalid trade uid.');
  });

  it('answers the lists, expiring, roll history and ancestor with the NUL message', async () => {
    for (const url of [
      `/api/v1/trades/status/open?su=a${'%00'}b`,
      `/api/v1/trades/status/closed?au=a${'%00'}b`,
      `/api/v1/trades/status/open?ticker=SP${'%00'}Y`,
      `/api/v1/trades/expiring?ticker=SP${'%00'}Y`,
      `/api/v1/trades/a${'%00'}b/roll-history`,
      `/api/v1/trades/a${'%00'}b/ancestor`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: user.authorization } });
      expect(res.statusCode, url).toBe(422);
      // The field's own rule (a trade uid's shape) may refuse it first, with its message.
      expect([NUL_TEXT_MESSAGE, 'Invalid trade uid.'], url).toContain(res.json().message);
    }
  });

  it('refuses a new password with NUL at sign-up', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/users/signup', payload: { name: 'Jane Trader', email: 'nul-password@example.com', password: `Abc12!${NUL}`, agreed_to_terms: true } });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe(NUL_TEXT_MESSAGE);
    const stored = await sql<{ n: string }>`select count(*) as n from users where email = 'nul-password@example.com'`.execute(t.db.db);
    expect(Number(stored.rows[0]?.n)).toBe(0);
  });
});

describe('look-alike e-mail addresses', () => {
  const signup = (email: string) =>
    t.app.inject({ method: 'POST', url: '/api/v1/users/signup', payload: { name: 'Jane Trader', email, password: 'Abc12!', agreed_to_terms: true } });

  it.each([
    ['zero-width space', 'look\u200Balike@example.com'],
    ['right-to-left override', 'look\u202Ealike@example.com'],
    ['byte-order mark in front', '\uFEFFlookalike@example.com'],
    ['line separator at the end', 'lookalike@example.com\u2028'],
    ['word joiner', 'lookalike@exa\u2060mple.com'],
    ['left-to-right mark', '\u200Elookalike@example.com'],
  ])('refuses an address with a %s', async (_, address) => {
    const res = await signup(address);
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toBe(emailMessages.invalid);
  });

  it('still accepts the plain address, with ordinary spaces around it, once', async () => {
    expect((await signup('  lookalike@example.com ')).statusCode).toBe(201);
    // Once: the second is the same address (sign-up answers as for a new one, and makes no account).
    expect((await signup('lookalike@example.com')).statusCode).toBe(201);
    const accounts = await t.db.db.selectFrom('users').select('uid').where('email', '=', 'lookalike@example.com').execute();
    expect(accounts).toHaveLength(1);
  });
});

describe('direction overrides in written text', () => {
  const RLO = '\u202E';
  const PDF = '\u202C';
  const FSI = '\u2068';
  const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = { authorization: user.authorization }) =>
    t.app.inject({ method: 'POST', url, headers, payload });

  it('are a 422 naming the field, in a contact message and an account name, and nothing is written (QA: "evil" read "live" to support)', async () => {
    const before = await eventCount();
    const messages = async () => Number((await sql<{ n: string }>`select count(*) as n from contact_messages`.execute(t.db.db)).rows[0]?.n ?? 0);
    const messagesBefore = await messages();
    const contact = await post('/api/v1/users/contact-us', { subject: `Refund ${RLO}evil${PDF}`, message: 'Please.' });
    expect([contact.statusCode, contact.json().message, contact.json().detail]).toEqual([422, DIRECTION_CONTROL_MESSAGE, [{ field: 'body.subject', message: DIRECTION_CONTROL_MESSAGE }]]);
    const account = await post('/api/v1/accounts/add-account', { name: `Main ${FSI}x`, broker: 'schwab', ac_type: 2 });
    expect([account.statusCode, account.json().detail?.[0]?.field]).toEqual([422, 'body.name']);
    expect(await messages()).toBe(messagesBefore);
    expect(await eventCount()).toBe(before);
  });

  it('leave right-to-left writing and its direction marks alone, and never refuse a password', async () => {
    const hebrew = await post('/api/v1/users/contact-us', { subject: 'שלום \u200Fעולם', message: 'مرحبا بالعالم \u200E(AAPL)' });
    expect(hebrew.statusCode).toBe(201);
    // A password is never shown: the sign-in's own answer, not this rule's.
    const login = await post('/api/v1/users/login', { email: 'nobody@example.com', password: `Abc12!${RLO}` }, {});
    expect(login.statusCode).toBe(401);
  });
});

