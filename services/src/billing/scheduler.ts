import { sql } from 'kysely';
import { DAY_MS, newYorkDate } from '@oj/contracts/business-date';
import { RENEWAL_SETTLE_MS, subscriptionStatusCodes as codes } from '@oj/contracts/subscriptions';
import type { Logger } from 'pino';
import { AppError } from '../app/errors.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { decide, type SubscriptionCommand } from './domain/decide.ts';
import { cardExpiringMail, trialEndingMail } from './reminder-mails.ts';
import { settleAwaitedRenewal } from './commands.ts';
import { loadSubscription, runCommand, schedulerActor, type StoreContext } from './store.ts';
import type { Stripe } from './stripe-client.ts';

export const TRIAL_REMINDER_DAYS = 7;

export interface TickContext extends StoreContext {
  publicUrl: string;
  /** Cancels at Stripe a subscription whose grace period ended (null: nothing to cancel, self-hosted). */
  stripe?: Stripe | null;
  logger?: Logger;
}

export interface TickResult {
  gracesExpired: number;
  periodsEnded: number;
  trialReminders: number;
  cardReminders: number;
  /** Periods ended with a live Stripe subscription whose renewal (or end) was learnt by asking Stripe. */
  renewalsSettled: number;
}

/**
 * One pass of the billing scheduler: ends what the clock ends (grace periods after 2 days, cancelled
 * subscriptions and trials without a subscription at their period end) as events of the scheduler, and
 * sends the reminder mails. Each step is safe to run twice or in two processes at once: the decider
 * refuses a transition already made (the stream's expected revision decides a race), and a reminder's key
 * is inserted in the transaction that enqueues its mail, so it is sent exactly once.
 */
export async function runBillingTick(ctx: TickContext): Promise<TickResult> {
  const now = ctx.clock.now();
  const result: TickResult = { gracesExpired: 0, periodsEnded: 0, trialReminders: 0, cardReminders: 0, renewalsSettled: 0 };
  const apply = async (userId: string, command: SubscriptionCommand): Promise<boolean> => {
    let stripeSubscriptionId: string | null = null;
    try {
      const { appended } = await runCommand(
        ctx,
        userId,
        (state) => {
          stripeSubscriptionId = state.stripeSubscriptionId;
          return decide(command, state, { now });
        },
        { actor: schedulerActor, command: command.type },
      );
      if (appended.some((e) => e.type === 'GraceExpired') && stripeSubscriptionId) await cancelAtStripe(ctx, stripeSubscriptionId);
      return appended.length > 0;
    } catch (error) {
      // Another process (or Stripe's webhook) got there first: nothing to do.
      if (error instanceof AppError && error.kind === 'conflict') return false;
      throw error;
    }
  };

  const graces = await ctx.db.selectFrom('subscriptions').select('user_uid').where('status', '=', codes.due).where('grace_ends_at', '<=', now).execute();
  for (const { user_uid } of graces) if (await apply(user_uid, { type: 'ExpireGrace' })) result.gracesExpired += 1;

  const ended = await ctx.db
    .selectFrom('subscriptions')
    .select('user_uid')
    .where('current_period_end', '<=', now)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', 'in', [codes.active, codes.trial]), eb('cancel_at_period_end', '=', true)]),
        eb.and([eb('status', '=', codes.trial), eb('stripe_subscription_id', 'is', null)]),
      ]),
    )
    .execute();
  for (const { user_uid } of ended) if (await apply(user_uid, { type: 'ExpireAtPeriodEnd' })) result.periodsEnded += 1;

  if (ctx.stripe) result.renewalsSettled = await settleAwaitedRenewals({ ...ctx, stripe: ctx.stripe }, now);

  result.trialReminders = await sendTrialReminders(ctx, now);
  result.cardReminders = await sendCardReminders(ctx, now);
  return result;
}

/**
 * Plans whose period ended a while ago with their Stripe subscription alive and no word from Stripe (its
 * invoice.paid, invoice.payment_failed or customer.subscription.deleted lost, or never sent to this
 * endpoint): Stripe is asked what became of each, and that is recorded, so a paying trader is not left
 * locked out, nor a cancelled one let in. Until then (`RENEWAL_SETTLE_MS`, the hour or so Stripe takes to
 * charge a renewal) the plan keeps its access; still charging after it: asked again at the next tick.
 */
async function settleAwaitedRenewals(ctx: TickContext & { stripe: Stripe }, now: Date): Promise<number> {
  const awaited = await ctx.db
    .selectFrom('subscriptions')
    .select('user_uid')
    .where('status', 'in', [codes.active, codes.trial])
    .where('stripe_subscription_id', 'is not', null)
    .where('cancel_at_period_end', '=', false)
    .where('current_period_end', '<=', new Date(now.getTime() - RENEWAL_SETTLE_MS))
    .execute();
  let settled = 0;
  for (const { user_uid } of awaited) {
    try {
      const { state } = await loadSubscription(ctx, user_uid);
      const { outcome } = await settleAwaitedRenewal(ctx, user_uid, state, now, schedulerActor);
      if (outcome === 'renewed' || outcome === 'ended') settled += 1;
    } catch (error) {
      // Stripe unreachable, or another process recorded it first: the next tick asks again.
      ctx.logger?.warn({ err: error, user: user_uid }, 'billing tick: could not settle an awaited renewal');
    }
  }
  return settled;
}

/**
 * An expired grace period ends the subscription at Stripe too: left alone, Stripe would keep retrying the
 * open invoice and could charge a user who no longer has access (a late payment of a subscription we no
 * longer follow decides nothing).
 */
async function cancelAtStripe(ctx: TickContext, stripeSubscriptionId: string): Promise<void> {
  if (!ctx.stripe) return;
  try {
    await ctx.stripe.subscriptions.cancel(stripeSubscriptionId, {}, { idempotencyKey: `grace-expired:${stripeSubscriptionId}` });
  } catch (error) {
    ctx.logger?.error({ err: error, stripeSubscriptionId }, 'could not cancel the subscription of an expired grace period at Stripe');
  }
}

/** Inserts the reminder's key and its mail in one transaction; false when it was sent before. */
async function remindOnce(ctx: TickContext, key: string, userId: string, kind: string, send: (trx: any) => Promise<unknown>): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('billing_reminders')
      .values({ key, user_uid: userId, kind, sent_at: ctx.clock.now() })
      .onConflict((oc) => oc.column('key').doNothing())
      .returning('key')
      .executeTakeFirst();
    if (!inserted) return false;
    await send(trx);
    return true;
  });
}

async function sendTrialReminders(ctx: TickContext, now: Date): Promise<number> {
  const rows = await ctx.db
    .selectFrom('subscriptions as s')
    .innerJoin('users as u', 'u.uid', 's.user_uid')
    .select(['s.user_uid', 's.current_period_end', 's.stripe_subscription_id', 's.cancel_at_period_end', 'u.email', 'u.name'])
    .where('s.status', '=', codes.trial)
    .where('u.role', '=', 'User')
    .where('s.current_period_end', '>', now)
    .where('s.current_period_end', '<=', new Date(now.getTime() + TRIAL_REMINDER_DAYS * DAY_MS))
    .execute();
  let sent = 0;
  for (const row of rows) {
    const end = row.current_period_end as Date;
    // One per trial: the trial is named by its end.
    const key = `trial-ending:${row.user_uid}:${end.toISOString()}`;
    // Charged at the trial's end only when subscribed and not cancelled: a card saved without subscribing,
    // or a subscription cancelled in the trial, charges nothing.
    const mail = trialEndingMail(ctx.publicUrl, row.email, row.name, end, row.stripe_subscription_id != null && !row.cancel_at_period_end, now);
    if (await remindOnce(ctx, key, row.user_uid, 'trial-ending', (trx) => enqueueMail(trx, mail, now))) sent += 1;
  }
  return sent;
}

async function sendCardReminders(ctx: TickContext, now: Date): Promise<number> {
  // A card is valid to the end of its expiry month: the reminder goes in the month before (New York).
  // A card that was not on file then (saved or reactivated in its expiry month) is told in that month,
  // before the renewal it cannot pay (QA: reactivated on 7 January with a card of 01, no reminder ever).
  // One reminder per card and expiry: the key does not say which month sent it.
  const [year, month] = newYorkDate(now).split('-').map(Number) as [number, number];
  const next = { year: month === 12 ? year + 1 : year, month: month === 12 ? 1 : month + 1 };
  const rows = await ctx.db
    .selectFrom('subscriptions as s')
    .innerJoin('users as u', 'u.uid', 's.user_uid')
    .select(['s.user_uid', 's.card_brand', 's.card_last4', 's.card_exp_month', 's.card_exp_year', 'u.email', 'u.name'])
    .where((eb) =>
      eb.or([
        eb.and([eb('s.card_exp_year', '=', next.year), eb('s.card_exp_month', '=', next.month)]),
        eb.and([eb('s.card_exp_year', '=', year), eb('s.card_exp_month', '=', month)]),
      ]),
    )
    .where('s.stripe_subscription_id', 'is not', null)
    .where('s.cancel_at_period_end', '=', false)
    .where(sql<boolean>`s.status in (${sql.join([codes.trial, codes.active, codes.due])})`)
    .execute();
  let sent = 0;
  for (const row of rows) {
    const expYear = Number(row.card_exp_year);
    const expMonth = Number(row.card_exp_month);
    const card = { brand: row.card_brand as string, last4: row.card_last4 as string, expMonth, expYear };
    const key = `card-expiring:${row.user_uid}:${card.brand}-${card.last4}:${expYear}-${String(expMonth).padStart(2, '0')}`;
    const mail = cardExpiringMail(ctx.publicUrl, row.email, row.name, card, expYear === year && expMonth === month ? 'this month' : 'next month');
    if (await remindOnce(ctx, key, row.user_uid, 'card-expiring', (trx) => enqueueMail(trx, mail, now))) sent += 1;
  }
  return sent;
}
