import type { Kysely } from 'kysely';
import type { Clock } from '@oj/infra/clock';
import { uuidv7 } from '@oj/infra/ids';
import {
  ACCOUNT_IMAGE_MAX_SIDE,
  MAX_TRADE_ACCOUNTS,
  accountMessages,
  type Account,
  type AddAccountRequest,
  type UpdateAccountRequest,
  type UpdateDefaultAccountRequest,
} from '@oj/contracts/accounts';
import { AppError } from '../app/errors.ts';
import type { Principal } from '../app/principal.ts';
import { assertActiveSubscription } from '../identity/subscriptions.ts';
import { removeStoredImage, storeImage } from './images.ts';
import { findAccountOfUser } from './queries.ts';

export interface AccountsContext {
  db: Kysely<any>;
  clock: Clock;
  dataDir: string;
}

/** Managing accounts needs an active subscription (part 2 §6); reading them does not. */
const requireActiveSubscription = (principal: Principal): void => assertActiveSubscription(principal, accountMessages.subscriptionExpired);

async function ownAccountOrNotFound(db: Kysely<any>, userId: string, uid: string): Promise<Account> {
  const account = await findAccountOfUser(db, userId, uid);
  if (!account) throw new AppError('not_found', accountMessages.notFound);
  return account;
}

/** Locks the user's row for the transaction: the user's account writes (limit, default, names) go one at a time. */
async function lockUser(trx: Kysely<any>, userId: string): Promise<void> {
  await trx.selectFrom('users').select('uid').where('uid', '=', userId).forUpdate().executeTakeFirstOrThrow();
}

/**
 * Refuses a name another of the user's accounts has (letter case and outer spaces aside): the trade
 * forms and the cards name accounts by name alone, and two "Main Schwab" could not be told apart (QA).
 * Run under the user's row lock, so two requests cannot both take a name.
 */
async function assertNameFree(trx: Kysely<any>, userId: string, name: string, except?: string): Promise<void> {
  const taken = await trx
    .selectFrom('trade_accounts')
    .select('uid')
    .where('user_uid', '=', userId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .$if(except !== undefined, (q) => q.where('uid', '!=', except!))
    .executeTakeFirst();
  if (taken) throw new AppError('conflict', accountMessages.nameTaken);
}

/**
 * Adds an account. The user's row is locked for the transaction so that the limit of 10, "the first
 * account becomes the default" and one name per account hold under concurrent requests.
 */
export async function addAccount(ctx: AccountsContext, principal: Principal, input: AddAccountRequest): Promise<Account> {
  requireActiveSubscription(principal);
  const now = ctx.clock.now();
  const uid = uuidv7(now.getTime());
  await ctx.db.transaction().execute(async (trx) => {
    await lockUser(trx, principal.userId);
    const { count } = (await trx.selectFrom('trade_accounts').select((eb) => eb.fn.countAll<number>().as('count')).where('user_uid', '=', principal.userId).executeTakeFirstOrThrow()) as {
      count: number;
    };
    if (Number(count) >= MAX_TRADE_ACCOUNTS) throw new AppError('conflict', accountMessages.limit);
    await assertNameFree(trx, principal.userId, input.name);
    await trx
      .insertInto('trade_accounts')
      .values({
        uid,
        user_uid: principal.userId,
        name: input.name,
        broker: input.broker,
        ac_type: input.ac_type,
        broker_commission: input.broker_commission,
        broker_fee: input.broker_fee,
        default_account: Number(count) === 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await trx.updateTable('users').set({ has_trade_account: true, updated_at: now }).where('uid', '=', principal.userId).where('has_trade_account', '=', false).execute();
  });
  return ownAccountOrNotFound(ctx.db, principal.userId, uid);
}

export async function updateAccount(ctx: AccountsContext, principal: Principal, uid: string, input: UpdateAccountRequest): Promise<Account> {
  requireActiveSubscription(principal);
  await ownAccountOrNotFound(ctx.db, principal.userId, uid);
  const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length > 0) {
    await ctx.db.transaction().execute(async (trx) => {
      await lockUser(trx, principal.userId);
      if (input.name !== undefined) await assertNameFree(trx, principal.userId, input.name, uid);
      await trx
        .updateTable('trade_accounts')
        .set({ ...changes, updated_at: ctx.clock.now() })
        .where('uid', '=', uid)
        .where('user_uid', '=', principal.userId)
        .execute();
    });
  }
  return ownAccountOrNotFound(ctx.db, principal.userId, uid);
}

/** Makes `new_default` the default. Both uids must be the user's; the old flag is cleared first (one-default index). */
export async function setDefaultAccount(ctx: AccountsContext, principal: Principal, input: UpdateDefaultAccountRequest): Promise<Account> {
  requireActiveSubscription(principal);
  await ownAccountOrNotFound(ctx.db, principal.userId, input.old_default);
  await ownAccountOrNotFound(ctx.db, principal.userId, input.new_default);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await lockUser(trx, principal.userId);
    await trx.updateTable('trade_accounts').set({ default_account: false, updated_at: now }).where('user_uid', '=', principal.userId).where('default_account', '=', true).execute();
    await trx.updateTable('trade_accounts').set({ default_account: true, updated_at: now }).where('user_uid', '=', principal.userId).where('uid', '=', input.new_default).execute();
  });
  return ownAccountOrNotFound(ctx.db, principal.userId, input.new_default);
}

export async function setAccountImage(ctx: AccountsContext, principal: Principal, uid: string, image: string): Promise<{ url: string }> {
  requireActiveSubscription(principal);
  await ownAccountOrNotFound(ctx.db, principal.userId, uid);
  const { url } = await storeImage(ctx.dataDir, 'account', image, ACCOUNT_IMAGE_MAX_SIDE);
  let replaced: string | null = null;
  try {
    // The old picture read under the row's lock: of two uploads at once, each removes the one it replaced.
    await ctx.db.transaction().execute(async (trx) => {
      const row = (await trx.selectFrom('trade_accounts').select('bg_image').where('uid', '=', uid).where('user_uid', '=', principal.userId).forUpdate().executeTakeFirst()) as
        | { bg_image: string | null }
        | undefined;
      if (!row) throw new AppError('not_found', accountMessages.notFound);
      replaced = row.bg_image;
      await trx.updateTable('trade_accounts').set({ bg_image: url, updated_at: ctx.clock.now() }).where('uid', '=', uid).where('user_uid', '=', principal.userId).execute();
    });
  } catch (error) {
    await removeStoredImage(ctx.dataDir, url);
    throw error;
  }
  // Only after the commit: until then the old picture is the account's.
  await removeStoredImage(ctx.dataDir, replaced);
  return { url };
}
