import type { Kysely } from 'kysely';
import type { Account } from '@oj/contracts/accounts';

const columns = ['uid', 'name', 'broker', 'ac_type', 'broker_commission', 'broker_fee', 'bg_image', 'default_account'] as const;
const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

/** The user's accounts, default first, then oldest first. */
export async function listAccountsOfUser(db: Kysely<any>, userId: string): Promise<Account[]> {
  return (await db
    .selectFrom('trade_accounts')
    .select(columns)
    .where('user_uid', '=', userId)
    .orderBy('default_account', 'desc')
    .orderBy('created_at')
    .orderBy('uid')
    .execute()) as Account[];
}

/**
 * One account, only if it belongs to the user: every module that takes an account uid from a request
 * (the trade journal) checks ownership with this, and answers 404 otherwise.
 */
export async function findAccountOfUser(db: Kysely<any>, userId: string, accountUid: string): Promise<Account | undefined> {
  if (!isUuid(accountUid)) return undefined;
  return (await db.selectFrom('trade_accounts').select(columns).where('user_uid', '=', userId).where('uid', '=', accountUid).executeTakeFirst()) as Account | undefined;
}

/** The user's default account, if any. */
export async function findDefaultAccountOfUser(db: Kysely<any>, userId: string): Promise<Account | undefined> {
  return (await db.selectFrom('trade_accounts').select(columns).where('user_uid', '=', userId).where('default_account', '=', true).executeTakeFirst()) as Account | undefined;
}
