import type { Kysely } from 'kysely';
import { newYorkDate } from '@oj/contracts/business-date';
import type { ActorRole, EventMetadata } from '@oj/contracts/events';
import { billingMessages as m } from '@oj/contracts/billing';
import { subscriptionEventSchemas, subscriptionEventVersions, subscriptionStreamId, type SubscriptionEvent } from '@oj/contracts/subscription-events';
import type { Clock } from '@oj/infra/clock';
import { deterministicUuid, uuidv7 } from '@oj/infra/ids';
import { WrongExpectedRevisionError, type EventStore, type NewEvent } from '@oj/infra/eventstore/port';
import { AppError } from '../app/errors.ts';
import { forgetPrincipal } from '../identity/principal-cache.ts';
import { findSubscription } from '../identity/subscriptions.ts';
import { SubscriptionConflict } from './domain/decide.ts';
import { evolve, fold, type SubscriptionState } from './domain/state.ts';

/**
 * The subscription stream's command handler: read the stream, fold, decide, append with the expected
 * revision, then write the projection row (`subscriptions`) from the folded state. The event store may be
 * EventStoreDB, outside any database transaction, so the row is not written in the append's transaction;
 * instead it is a pure function of the stream: every write is the whole state at a stream revision, and a
 * write never replaces a newer revision. A crash between append and row leaves the row one step behind
 * until the user's next command (or the scheduler's) writes it again; it never leaves it wrong in a way a
 * later write cannot fix.
 */
export interface StoreContext {
  db: Kysely<any>;
  eventStore: EventStore;
  clock: Clock;
}

export interface Actor {
  id: string;
  role: ActorRole;
}
export const stripeActor: Actor = { id: 'stripe-webhook', role: 'system' };
export const schedulerActor: Actor = { id: 'billing-scheduler', role: 'system' };
export const userActor = (userId: string): Actor => ({ id: userId, role: 'trader' });

export interface Loaded {
  state: SubscriptionState;
  /** The revision the append expects (-1: no stream yet). */
  revision: number;
  /** TrialStarted for a user who has only a sign-up row: appended with the first decision. */
  seed: SubscriptionEvent[];
}

function parse(type: string, data: unknown): SubscriptionEvent {
  const schema = subscriptionEventSchemas[type as keyof typeof subscriptionEventSchemas];
  if (!schema) throw new Error(`Unknown subscription event type ${type}`);
  return { type, data: schema.parse(data) } as SubscriptionEvent;
}

export async function loadSubscription(ctx: StoreContext, userId: string): Promise<Loaded> {
  const stored = await ctx.eventStore.readStream(subscriptionStreamId(userId));
  if (stored.length > 0) {
    const state = fold(stored.map((e) => parse(e.type, e.data)));
    return { state, revision: state.revision, seed: [] };
  }
  // Users who signed up before the lifecycle was event-sourced (and every new user until their first
  // command) have only the row sign-up wrote: their stream starts with the trial that row describes.
  const row = await findSubscription(ctx.db, userId);
  if (!row) throw new AppError('not_found', 'No subscription found for this user.');
  const trialEnd = row.current_period_end ?? ctx.clock.now();
  const trialStart = row.current_period_start ?? trialEnd;
  const seed: SubscriptionEvent[] = [{ type: 'TrialStarted', data: { trialStart: trialStart.toISOString(), trialEnd: trialEnd.toISOString() } }];
  return { state: fold(seed), revision: -1, seed };
}

/** Writes the row for a state; a row already at this revision or a newer one stays. */
export async function project(db: Kysely<any>, userId: string, state: SubscriptionState, now: Date): Promise<void> {
  const date = (s: string | null) => (s === null ? null : new Date(s));
  const card = state.paymentMethod?.card ?? null;
  const values = {
    status: state.status,
    current_period_start: date(state.periodStart),
    current_period_end: date(state.periodEnd),
    cancel_at_period_end: state.cancelAtPeriodEnd,
    has_payment_method: state.paymentMethod !== null,
    payment_status: state.paymentStatus,
    stream_revision: state.revision,
    stripe_subscription_id: state.stripeSubscriptionId,
    trial_end: date(state.trialEnd),
    grace_ends_at: date(state.graceEndsAt),
    card_brand: card?.brand ?? null,
    card_last4: card?.last4 ?? null,
    card_exp_month: card?.exp_month ?? null,
    card_exp_year: card?.exp_year ?? null,
    updated_at: now,
  };
  await db
    .insertInto('subscriptions')
    .values({ user_uid: userId, ...values })
    .onConflict((oc) =>
      oc
        .column('user_uid')
        .doUpdateSet(values)
        .where((eb) => eb.or([eb('subscriptions.stream_revision', 'is', null), eb('subscriptions.stream_revision', '<', state.revision)])),
    )
    .execute();
  // This process's principal cache forgets the user at once; other gateways hear the trigger's NOTIFY.
  forgetPrincipal(userId);
}

export interface RunOptions {
  actor: Actor;
  command: string;
  /** A Stripe event id: the appended events get ids derived from it, so a redelivery appends nothing. */
  causationId?: string;
  correlationId?: string;
}

/**
 * Decides on the current state and appends. A lost race re-reads and decides once more; a second loss is
 * a 409. A refusal of the lifecycle is a 409 with its message.
 */
export async function runCommand(
  ctx: StoreContext,
  userId: string,
  decideOn: (state: SubscriptionState) => SubscriptionEvent[],
  options: RunOptions,
): Promise<{ state: SubscriptionState; appended: SubscriptionEvent[] }> {
  const streamId = subscriptionStreamId(userId);
  for (let attempt = 0; ; attempt++) {
    const loaded = await loadSubscription(ctx, userId);
    let decided: SubscriptionEvent[];
    try {
      decided = decideOn(loaded.state);
    } catch (error) {
      if (error instanceof SubscriptionConflict) throw new AppError('conflict', error.message);
      throw error;
    }
    const now = ctx.clock.now();
    if (decided.length === 0) {
      // Nothing new; a row behind its stream (a crash after an append) is brought up to date all the same.
      if (loaded.seed.length === 0) await project(ctx.db, userId, loaded.state, now);
      return { state: loaded.state, appended: [] };
    }
    const all = [...loaded.seed, ...decided];
    const metadata: EventMetadata = {
      userId,
      actor: options.actor,
      correlationId: options.correlationId ?? options.causationId ?? uuidv7(now.getTime()),
      causationId: options.causationId ?? null,
      idempotencyKey: null,
      recordedAt: now.toISOString(),
      businessDate: newYorkDate(now),
      command: options.command,
    };
    const events: NewEvent[] = all.map((event, i) => ({
      id:
        i < loaded.seed.length
          ? deterministicUuid('subscription-trial', userId)
          : options.causationId
            ? deterministicUuid('subscription', userId, options.causationId, String(i - loaded.seed.length))
            : uuidv7(now.getTime()),
      type: event.type,
      schemaVersion: subscriptionEventVersions[event.type],
      data: subscriptionEventSchemas[event.type].parse(event.data),
      metadata,
    }));
    try {
      await ctx.eventStore.append(streamId, events, loaded.revision === -1 ? 'no_stream' : loaded.revision);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError && attempt === 0) continue;
      if (error instanceof WrongExpectedRevisionError) throw new AppError('conflict', m.changedConcurrently);
      throw error;
    }
    const after = decided.reduce(evolve, loaded.state);
    await project(ctx.db, userId, after, now);
    return { state: after, appended: decided };
  }
}
