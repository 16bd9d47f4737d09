import type { Kysely } from 'kysely';
import type { CurrentUser, RoleName, SessionUser } from '@oj/contracts/users';
import type { BillingMode } from '@oj/contracts/subscriptions';
import type { Principal } from './principal.ts';
import { subscriptionAccess } from './subscriptions.ts';

/** A user with the subscription fields the session and the access checks need. */
export interface UserRecord {
  uid: string;
  name: string;
  email: string;
  password_hash: string;
  role: RoleName;
  account_confirmed: boolean;
  agreed_to_terms: boolean;
  has_trade_account: boolean;
  username: string | null;
  website: string | null;
  bio: string | null;
  avatar: string | null;
  bg_image: string | null;
  created_at: Date;
  sub_status: number | null;
  sub_period_start: Date | null;
  sub_period_end: Date | null;
  sub_cancel: boolean | null;
  sub_pm: boolean | null;
  sub_payment_status: string | null;
  /** The Stripe subscription, when one is live: a renewal being charged keeps access (subscriptionAccess). */
  sub_stripe_subscription_id: string | null;
  /**
   * The user's sign-ins (refresh token families) ended within an access token's lifetime, when the record
   * was read for authentication (`endedSessions`): access tokens of these are refused.
   */
  ended_sessions?: readonly string[];
}

/** The user's sign-ins ended since `since`: their access tokens, all issued after `since` if still valid, are refused. */
export async function endedSessions(db: Kysely<any>, uid: string, since: Date): Promise<string[]> {
  const rows = await db.selectFrom('refresh_tokens').select('family_id').distinct().where('user_uid', '=', uid).where('revoked_at', '>', since).execute();
  return rows.map((r) => r.family_id as string);
}

function selectUsers(db: Kysely<any>) {
  return db
    .selectFrom('users as u')
    .leftJoin('subscriptions as s', 's.user_uid', 'u.uid')
    .select([
      'u.uid',
      'u.name',
      'u.email',
      'u.password_hash',
      'u.role',
      'u.account_confirmed',
      'u.agreed_to_terms',
      'u.has_trade_account',
      'u.username',
      'u.website',
      'u.bio',
      'u.avatar',
      'u.bg_image',
      'u.created_at',
      's.status as sub_status',
      's.current_period_start as sub_period_start',
      's.current_period_end as sub_period_end',
      's.cancel_at_period_end as sub_cancel',
      's.has_payment_method as sub_pm',
      's.payment_status as sub_payment_status',
      's.stripe_subscription_id as sub_stripe_subscription_id',
    ]);
}

export async function findUserByUid(db: Kysely<any>, uid: string): Promise<UserRecord | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(uid)) return undefined;
  return (await selectUsers(db).where('u.uid', '=', uid).executeTakeFirst()) as UserRecord | undefined;
}

export async function findUserByEmail(db: Kysely<any>, email: string): Promise<UserRecord | undefined> {
  // PostgreSQL refuses NUL in text (a 500); no stored address contains a control character anyway.
  if (/\p{Cc}/u.test(email)) return undefined;
  return (await selectUsers(db).where('u.email', '=', email.trim().toLowerCase()).executeTakeFirst()) as UserRecord | undefined;
}

function access(user: UserRecord, now: Date, billing: BillingMode) {
  const row =
    user.sub_status === null
      ? undefined
      : {
          status: user.sub_status,
          current_period_start: user.sub_period_start,
          current_period_end: user.sub_period_end,
          cancel_at_period_end: user.sub_cancel ?? false,
          has_payment_method: user.sub_pm ?? false,
          payment_status: user.sub_payment_status,
          stripe_subscription_id: user.sub_stripe_subscription_id,
        };
  return subscriptionAccess(row, user.role, now, billing);
}

/** `billing`: the deployment's mode (config.mode.billing); self-hosted users are never locked out. */
export function principalOfUser(user: UserRecord, now: Date, billing: BillingMode = 'stripe'): Principal {
  const { subsStatus, active } = access(user, now, billing);
  return {
    userId: user.uid,
    email: user.email,
    name: user.name,
    role: user.role,
    subsStatus,
    subscriptionActive: active,
    verified: user.account_confirmed,
  };
}

export function sessionUserOf(user: UserRecord, now: Date, billing: BillingMode = 'stripe'): SessionUser {
  return {
    uid: user.uid,
    user_uid: user.uid,
    name: user.name,
    email: user.email,
    role: user.role,
    subs_status: access(user, now, billing).subsStatus,
    uac: user.account_confirmed,
    tac: user.has_trade_account,
    agreed_to_terms: user.agreed_to_terms,
    has_trade_account: user.has_trade_account,
    avatar: user.avatar,
  };
}

export function currentUserOf(user: UserRecord, now: Date, billing: BillingMode = 'stripe'): CurrentUser {
  return {
    uid: user.uid,
    name: user.name,
    username: user.username,
    website: user.website,
    bio: user.bio,
    email: user.email,
    avatar: user.avatar,
    bg_image: user.bg_image,
    agreed_to_terms: user.agreed_to_terms,
    account_confirmed: user.account_confirmed,
    has_trade_account: user.has_trade_account,
    role: user.role,
    subs_status: access(user, now, billing).subsStatus,
    user_since: user.created_at.toISOString(),
  };
}
