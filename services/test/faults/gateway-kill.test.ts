import type { ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnService, waitHealthy } from '@oj/infra/testing/processes';
import { signInAs } from '../../src/identity/testing.ts';
import { createStack, kill, type Stack } from './harness.ts';

/**
 * Fault: the gateway process is killed with SIGKILL while commands are in flight; the client never gets
 * those answers and, once a gateway is back, sends each command again under its Idempotency-Key. Every
 * command then has exactly one effect: the events of one of its requests, never two.
 */
let stack: Stack;
let gateway: ChildProcess | undefined;
let port: number;

async function startGateway(): Promise<ChildProcess> {
  const child = spawnService('gateway', { ...stack.env, PORT: String(port) }, 'ignore');
  await waitHealthy(`http://127.0.0.1:${port}`);
  return child;
}

beforeAll(async () => {
  stack = await createStack('fault_gateway_kill');
  port = await freePort();
  gateway = await startGateway();
}, 120_000);

afterAll(async () => {
  if (gateway) await kill(gateway);
  await stack?.close();
}, 60_000);

describe('a gateway killed mid-request, then the client retries', () => {
  it('gives each command one effect', async () => {
    // The gateway process runs on the real clock: sign in through it for a token it accepts.
    const user = await signInAs(stack.t);
    const login = await fetch(`http://127.0.0.1:${port}/api/v1/users/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email, password: user.password }) });
    expect(login.status).toBe(200);
    const me = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
    const account = await fetch(`http://127.0.0.1:${port}/api/v1/accounts/add-account`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: me.authorization }, body: JSON.stringify({ name: 'Main', broker: 'ibkr', ac_type: 1 }) });
    expect(account.status).toBe(201);
    const accountUid = ((await account.json()) as { uid: string }).uid;
    const commands = Array.from({ length: 40 }, (_, i) => ({
      key: `gw-kill-${i}`,
      body: {
        trade_data: {
          ticker: 'SPY', strategy_uid: 'cash-secured-put', account_uid: accountUid, strike_prices: [400 + i], trade_open_date: '2026-02-02', expiration_date: '2026-03-20',
          contract_size: 1, premium_at_open: 100 + i, net_fee_to_open: 1, net_delta: 0.3, stock_price_at_open: 410, notes: `#${i}`,
        },
        tag_data: [],
      },
    }));
    const send = (c: (typeof commands)[number], attempt: string) =>
      fetch(`http://127.0.0.1:${port}/api/v1/trades/add-trade`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: me.authorization, 'idempotency-key': c.key, 'x-request-id': `${c.key}-${attempt}` },
        body: JSON.stringify(c.body),
      }).then(
        (r) => r.status,
        () => 0, // no answer: the connection died with the process
      );
    // All in flight at once; the process dies under them.
    const first = commands.map((c) => send(c, 'first'));
    await new Promise((r) => setTimeout(r, 30));
    await kill(gateway!);
    const firstStatuses = await Promise.all(first);
    expect(firstStatuses.filter((s) => s === 0).length, 'some requests were cut off').toBeGreaterThan(0);
    expect(firstStatuses.filter((s) => s >= 500)).toEqual([]);

    gateway = await startGateway();
    const retryStatuses = await Promise.all(commands.map((c) => send(c, 'retry')));
    expect(retryStatuses.every((s) => s === 201), JSON.stringify(retryStatuses)).toBe(true);

    const { rows } = await sql<{ key: string; writers: string[]; n: number }>`
      select metadata->>'idempotencyKey' as key, array_agg(distinct metadata->>'correlationId') as writers, count(*)::int as n
      from events where metadata->>'idempotencyKey' like 'gw-kill-%' group by 1`.execute(stack.t.db.db);
    expect(rows).toHaveLength(commands.length);
    for (const r of rows) {
      expect(r.n, r.key).toBe(1);
      expect(r.writers, r.key).toHaveLength(1);
    }
  }, 180_000);
});
