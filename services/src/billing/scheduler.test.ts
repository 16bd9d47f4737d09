import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { billingMessages as m } from '@oj/contracts/billing';
import { redisConnection } from '@oj/projections/runtime/projector';
import { createTestApp, signInAs, type TestApp } from '../identity/testing.ts';
import { trialEndingSubject } from './reminder-mails.ts';
import { runBillingTick } from './scheduler.ts';
import { BILLING_QUEUE, startBillingScheduler } from './scheduler-worker.ts';
import { startBillingApp, type BillingApp } from './testing/billing-harness.ts';

let b: BillingApp;
beforeAll(async () => {
  b = await startBillingApp('billing-scheduler');
});
afterAll(async () => b?.close());

const tickAt = (iso: string) => {
  b.t.clock.set(iso);
  return runBillingTick({ db: b.t.db.db, eventStore: b.t.deps.eventStore, clock: b.t.clock, publicUrl: 'http://journal.test' });
};
const mails = (to: string, kind: string) =>
  b.t.db.db.selectFrom('mail_outbox').select(['subject', 'text_body']).where('to_address', '=', to).where('kind', '=', kind).execute();

describe('reminders', () => {
  it('"Your trial ends in 7 days": once per trial, 7 days before its end', async () => {
    b.t.clock.set('2026-06-01T12:00:00.000Z'); // trial ends 1 July 12:00
    const u = await signInAs(b.t);
    await tickAt('2026-06-24T11:59:59.000Z');
    expect(await mails(u.email, 'trial-ending')).toEqual([]);
    expect((await tickAt('2026-06-24T12:00:00.000Z')).trialReminders).toBeGreaterThanOrEqual(1);
    await tickAt('2026-06-24T12:15:00.000Z');
    await tickAt('2026-06-28T00:00:00.000Z');
    const sent = await mails(u.email, 'trial-ending');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.subject).toBe('Your trial ends in 7 days');
    expect(sent[0]!.text_body).toContain('ends on July 01, 2026');
    expect(sent[0]!.text_body).toContain('http://journal.test/subscription');
  });

  it('a reminder sent late says the days that are left (QA: "7 days" for a trial ending in 5)', async () => {
    b.t.clock.set('2026-08-03T12:00:00.000Z'); // trial ends 2 September 12:00
    const u = await signInAs(b.t);
    // No tick ran at the 7-day mark (the server was down): the first one is 4 days and 23 hours before the end.
    await tickAt('2026-08-28T13:00:00.000Z');
    const sent = await mails(u.email, 'trial-ending');
    expect(sent.map((x) => x.subject)).toEqual(['Your trial ends in 5 days']);
    expect(sent[0]!.text_body).toContain('ends on September 02, 2026');
    expect(trialEndingSubject(new Date('2026-09-02T12:00:00Z'), new Date('2026-09-01T20:00:00Z'))).toBe('Your trial ends tomorrow');
    expect(trialEndingSubject(new Date('2026-09-02T12:00:00Z'), new Date('2026-08-26T12:00:00Z'))).toBe('Your trial ends in 7 days');
  });

  it('"Your card expires next month": once per card and expiry month, in the month before (New York)', async () => {
    b.t.clock.set('2026-01-05T12:00:00.000Z');
    const u = await b.user();
    const res = await (async () => {
      b.t.clock.set('2026-02-10T12:00:00.000Z');
      return b.subscribe(u, { expMonth: 5, expYear: 2026, last4: '4444' });
    })();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // 1 April 03:00 UTC is still 31 March in New York: not yet.
    await tickAt('2026-04-01T03:00:00.000Z');
    expect(await mails(u.email, 'card-expiring')).toEqual([]);
    await tickAt('2026-04-01T05:00:00.000Z');
    await tickAt('2026-04-20T05:00:00.000Z');
    const sent = await mails(u.email, 'card-expiring');
    expect(sent.map((x) => x.subject)).toEqual(['Your card expires next month']);
    expect(sent[0]!.text_body).toContain('The VISA card ending in 4444');
    expect(sent[0]!.text_body).toContain('05/2026');
    // In its expiry month the same card is not reminded again.
    await tickAt('2026-05-02T12:00:00.000Z');
    expect(await mails(u.email, 'card-expiring')).toHaveLength(1);
    // A new card with another expiry month gets its own reminder, in its own month.
    b.t.clock.set('2026-04-21T00:00:00.000Z');
    const pm = await b.saveCard(u, { expMonth: 9, expYear: 2026, last4: '7777' });
    expect((await b.call(u, 'POST', '/auth/update-payment-method', { paymentMethodId: pm })).status).toBe(200);
    await tickAt('2026-08-03T12:00:00.000Z');
    await tickAt('2026-08-04T12:00:00.000Z');
    expect((await mails(u.email, 'card-expiring')).map((x) => x.text_body.includes('7777'))).toEqual([false, true]);
  });

  it('a card first on file in its expiry month is told that month, once (QA: reactivated on 7 January with a card of 01, no reminder before the renewal it could not pay)', async () => {
    b.t.clock.set('2026-10-01T12:00:00.000Z');
    const u = await b.user();
    b.t.clock.set('2026-11-07T12:00:00.000Z');
    expect((await b.subscribe(u, { expMonth: 11, expYear: 2026, last4: '1111' })).status).toBe(200);
    // 1 December 03:00 UTC is still 30 November in New York: the card is valid to the end of that day.
    await tickAt('2026-11-07T13:00:00.000Z');
    await tickAt('2026-11-20T13:00:00.000Z');
    const sent = await mails(u.email, 'card-expiring');
    expect(sent.map((x) => x.subject)).toEqual(['Your card expires this month']);
    expect(sent[0]!.text_body).toContain('The VISA card ending in 1111 that pays for your Premium plan expires at the end of 11/2026.');
    // Past its month the card is expired: nothing more is said of it.
    await tickAt('2026-12-01T06:00:00.000Z');
    expect(await mails(u.email, 'card-expiring')).toHaveLength(1);
  });

  it('a trial without a subscription ends as an event of the scheduler', async () => {
    b.t.clock.set('2026-07-01T00:00:00.000Z');
    const u = await b.user();
    await tickAt('2026-07-30T23:59:59.000Z');
    expect(await b.stream(u.userId)).toEqual([]);
    await tickAt('2026-07-31T00:00:00.000Z');
    expect((await b.stream(u.userId)).map((e) => [e.type, e.actor, e.data.reason ?? null])).toEqual([
      ['TrialStarted', 'billing-scheduler', null],
      ['SubscriptionExpired', 'billing-scheduler', 'trial_end'],
    ]);
    // Nothing was ever charged: the last period is the trial (the history's bottom row reads TRIAL, not PAID).
    expect(await b.status(u)).toMatchObject({ status: 3, trial_period: true });
  });
});

describe('the scheduler in services mode', () => {
  it('runs as a BullMQ job scheduler (repeatable job) and sends the reminder once', async () => {
    b.t.clock.set('2026-09-01T12:00:00.000Z');
    const u = await b.user();
    b.t.clock.set('2026-09-25T12:00:00.000Z');
    const prefix = `oj-billing-test-${process.pid}-${Date.now()}`;
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const deps = { ...b.t.deps, config: { ...b.t.deps.config, REDIS_URL: url, BILLING_SCHEDULER_INTERVAL_SECONDS: 1 } };
    const worker = await startBillingScheduler(deps, { prefix });
    const queue = new Queue(BILLING_QUEUE, { connection: redisConnection(url), prefix });
    try {
      expect((await queue.getJobSchedulers()).map((s) => s.key)).toEqual(['billing-tick']);
      for (let i = 0; i < 300 && (await mails(u.email, 'trial-ending')).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      // Let a few more ticks run: still one mail.
      const done = await queue.getCompletedCount();
      for (let i = 0; i < 300 && (await queue.getCompletedCount()) < done + 2; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await mails(u.email, 'trial-ending')).toHaveLength(1);
    } finally {
      await worker.stop();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});

describe('self-hosted mode (no STRIPE_SECRET_KEY)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ label: 'billing-self-hosted', env: { STRIPE_SECRET_KEY: '' } });
  });
  afterAll(async () => t?.close());

  it('every user has Premium without end: no lock-out after the trial, no payments', async () => {
    expect(t.config.mode.billing).toBe('self-hosted');
    const u = await signInAs(t);
    t.clock.advance(400 * 86_400_000);
    const { accessTokenFor } = await import('../identity/commands.ts');
    const { identityContext } = await import('../identity/routes.ts');
    const { accessToken, user } = await accessTokenFor(identityContext(t.deps), u.userId);
    expect(user.subs_status).toBe(2);
    const headers = { authorization: `Bearer ${accessToken}` };
    const current = await t.app.inject({ method: 'GET', url: '/api/v1/subscription/current', headers });
    expect(current.json()).toEqual({ status: 2, cpe: null, cps: null, cape: false, pm: false, payment_status: null, mode: 'self-hosted', card: null, publishable_key: null, price_id: null, trial_period: false, subscribed: false, grace_ends_at: null, renewing: false });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/users/current_user', headers })).json().subs_status).toBe(2);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/accounts/add-account', headers, payload: { name: 'Main', broker: 'ibkr', ac_type: 1 } })).statusCode).toBe(201);
    const pay = await t.app.inject({ method: 'POST', url: '/api/v1/auth/create-payment-intent', headers });
    expect([pay.statusCode, pay.json().message]).toEqual([409, m.selfHosted]);
    // Every payment call says so first, whatever its body names (QA: create-subscription said "Unknown price").
    for (const [url, payload] of [
      ['/api/v1/auth/create-subscription', { paymentMethodId: 'pm_1', priceId: 'price_premium_monthly' }],
      ['/api/v1/auth/update-payment-method', { paymentMethodId: 'pm_1' }],
      ['/api/v1/auth/cancel-subscription', undefined],
      ['/api/v1/auth/reactivate-subscription', undefined],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
      expect([url, res.statusCode, res.json().message]).toEqual([url, 409, m.selfHosted]);
    }
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/payments/stripe/webhook', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode).toBe(404);
  });
});
