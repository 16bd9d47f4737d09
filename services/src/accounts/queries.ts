import type { Kysely } from 'kysely';
import type { Account } from '@oj/contracts/accounts';

const columns = ['uid', 'name', 'broker', 'ac_type', 'broker_commission', 'broker_fee', 'bg_image', 'default_account'] as const;
/**
 * Numeric columns come back as numbers from node-postgres but, at the time of writing, as strings from
 * the PGlite dialect: coerce here so both modes answer the same.
 */
const toAccount = (row: Record<string, unknown>): Account => ({
  uid: String(row.uid),
  name: String(row.name),
  broker: String(row.broker),
  ac_type: Number(row.ac_type),
  broker_commission: Number(row.broker_commission),
  broker_fee: Number(row.broker_fee),
  bg_image: (row.bg_image as string | null) ?? null,
  default_account: Boolean(row.default_account),
});

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

/** The user's accounts, default first, then oldest first. */
export async function listAccountsOfUser(db: Kysely<any>, userId: string): Promise<Account[]> {
  const rows = await db
    .selectFrom('trade_accounts')
    .select(columns)
    .where('user_uid', '=', userId)
    .orderBy('default_account', 'desc')
    .orderBy('created_at')
    .orderBy('uid')
    .execute();
  return rows.map(toAccount);
}

/**
 * One account, only if it belongs to the user: every module that takes an account uid from a request
 * (the trade journal) checks ownership with this, and answers 404 otherwise.
 */
export async function findAccountOfUser(db: Kysely<any>, userId: string, accountUid: string): Promise<Account | undefined> {
  if (!isUuid(accountUid)) return undefined;
  const row = await db.selectFrom('trade_accounts').select(columns).where('user_uid', '=', userId).where('uid', '=', accountUid).executeTakeFirst();
  return row ? toAccount(row) : undefined;
}

/** The user's default account, if any. */
export async function findDefaultAccountOfUser(db: Kysely<any>, userId: string): Promise<Account | undefined> {
  const row = await db.selectFrom('trade_accounts').select(columns).where('user_uid', '=', userId).where('default_account', '=', true).executeTakeFirst();
  return row ? toAccount(row) : undefined;
}
