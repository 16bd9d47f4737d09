import type { Kysely } from 'kysely';
import type { Config } from '@oj/infra/config';
import type { Clock } from '@oj/infra/clock';
import { uuidv7 } from '@oj/infra/ids';
import {
  INCORRECT_OLD_PASSWORD,
  VERIFY_FAILED_MESSAGE,
  type LoginRequest,
  type PasswordResetBody,
  type RoleName,
  type SessionUser,
  type SignupRequest,
  type UpdatePasswordRequest,
} from '@oj/contracts/users';
import { AppError } from '../app/errors.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { accountExistsMail, passwordResetMail, verificationMail } from '../mail/templates.ts';
import { dummyPasswordHash, hashPassword, verifyPassword } from './passwords.ts';
import { startTrial } from './subscriptions.ts';
import { randomToken, signAccessToken, tokenHash } from './tokens.ts';
import { findUserByEmail, findUserByUid, sessionUserOf } from './users.ts';
import { forgetPrincipal } from './principal-cache.ts';

export interface IdentityContext {
  db: Kysely<any>;
  clock: Clock;
  config: Pick<Config, 'JWT_SECRET' | 'ACCESS_TOKEN_TTL_SECONDS' | 'REFRESH_TOKEN_TTL_DAYS' | 'PUBLIC_URL'> & Partial<Pick<Config, 'mode'>>;
}

const HOUR_MS = 3_600_000;
export const VERIFY_TOKEN_TTL_MS = 24 * HOUR_MS;
export const RESET_TOKEN_TTL_MS = 1 * HOUR_MS;

export const identityMessages = {
  emailTaken: 'An account with this e-mail already exists.',
  badCredentials: 'Invalid email or password.',
  noRefreshToken: 'No session. Please sign in.',
  badRefreshToken: 'Your session has ended. Please sign in again.',
  refreshReuse: 'This session was signed out because its refresh token was used twice. Please sign in again.',
  alreadyVerified: 'Your account is already verified.',
  verificationSent: 'A new verification link was sent to your e-mail address.',
  resetInvalid: 'Invalid or expired password reset link.',
  resetResolution: 'Request a new password reset e-mail from the sign-in page and use the newest link within 1 hour.',
} as const;

async function createUserToken(trx: Kysely<any>, userUid: string, purpose: 'verify' | 'reset', now: Date, ttlMs: number): Promise<string> {
  const token = randomToken();
  await trx
    .insertInto('user_tokens')
    .values({ token_hash: tokenHash(token), user_uid: userUid, purpose, expires_at: new Date(now.getTime() + ttlMs), created_at: now })
    .execute();
  return token;
}

/** Inserts a user (and the trial, and the verification mail) in one transaction. */
export async function createUser(
  ctx: IdentityContext,
  input: { name: string; email: string; password: string; role?: RoleName; verified?: boolean; agreedToTerms?: boolean },
): Promise<string> {
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  const uid = uuidv7(now.getTime());
  const email = input.email.trim().toLowerCase();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('users')
        .values({
          uid,
          name: input.name.trim(),
          email,
          password_hash: passwordHash,
          role: input.role ?? 'User',
          account_confirmed: input.verified ?? false,
          agreed_to_terms: input.agreedToTerms ?? true,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await startTrial(trx, uid, now);
      if (!input.verified) {
        const token = await createUserToken(trx, uid, 'verify', now, VERIFY_TOKEN_TTL_MS);
        await enqueueMail(trx, verificationMail(ctx.config.PUBLIC_URL, email, input.name.trim(), token), now);
      }
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new AppError('conflict', identityMessages.emailTaken);
    throw error;
  }
  return uid;
}

/**
 * Sign-up. An address that already has an account gets the answer a new one gets (201, "check your
 * e-mail"), so the form does not tell a stranger who keeps a journal here (QA: a 409 "already exists" did,
 * while sign-in and reset answer alike for both); its owner is told by mail instead: a new verification
 * link while unverified, else that the account exists, with the way to sign in. The uid answered then
 * names no account.
 */
export async function signUp(ctx: IdentityContext, input: SignupRequest): Promise<string> {
  try {
    return await createUser(ctx, { name: input.name, email: input.email, password: input.password, agreedToTerms: input.agreed_to_terms });
  } catch (error) {
    if (!(error instanceof AppError && error.kind === 'conflict')) throw error;
    const owner = await findUserByEmail(ctx.db, input.email);
    if (owner && !owner.account_confirmed) await sendVerification(ctx, owner);
    else if (owner) await enqueueMail(ctx.db, accountExistsMail(ctx.config.PUBLIC_URL, owner.email, owner.name), ctx.clock.now());
    return uuidv7(ctx.clock.now().getTime());
  }
}

/**
 * Consumes a single-use token of the given purpose: the `used_at is null` guard in the update makes two
 * concurrent uses of one token succeed at most once.
 */
async function consumeToken(trx: Kysely<any>, token: string, purpose: 'verify' | 'reset', now: Date): Promise<string | undefined> {
  const row = await trx
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_uid')
    .executeTakeFirst();
  return row?.user_uid as string | undefined;
}

export async function verifyEmail(ctx: IdentityContext, token: string): Promise<void> {
  const now = ctx.clock.now();
  const verified = await ctx.db.transaction().execute(async (trx) => {
    const userUid = await consumeToken(trx, token, 'verify', now);
    if (!userUid) return null;
    await trx.updateTable('users').set({ account_confirmed: true, updated_at: now }).where('uid', '=', userUid).execute();
    return userUid;
  });
  if (!verified) throw new AppError('bad_request', VERIFY_FAILED_MESSAGE, { resolution: 'Request a new verification link.' });
  // This gateway's next request for the user must see it verified (other gateways hear it by NOTIFY).
  forgetPrincipal(verified);
}

async function sendVerification(ctx: IdentityContext, user: { uid: string; email: string; name: string }): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const token = await createUserToken(trx, user.uid, 'verify', now, VERIFY_TOKEN_TTL_MS);
    await enqueueMail(trx, verificationMail(ctx.config.PUBLIC_URL, user.email, user.name, token), now);
  });
}

/** Public resend by e-mail: does nothing visible for unknown or verified addresses (no enumeration). */
export async function resendVerification(ctx: IdentityContext, email: string): Promise<void> {
  const user = await findUserByEmail(ctx.db, email);
  if (user && !user.account_confirmed) await sendVerification(ctx, user);
}

export async function requestVerificationLink(ctx: IdentityContext, userUid: string): Promise<string> {
  const user = await findUserByUid(ctx.db, userUid);
  if (!user) throw new AppError('unauthorized', 'Not authenticated.');
  if (user.account_confirmed) return identityMessages.alreadyVerified;
  await sendVerification(ctx, user);
  return identityMessages.verificationSent;
}

export interface IssuedSession {
  user: SessionUser;
  accessToken: string;
  refreshToken: string;
  refreshExpiresAt: Date;
}

async function issueRefreshToken(trx: Kysely<any>, ctx: IdentityContext, userUid: string, familyId: string, now: Date) {
  const id = uuidv7(now.getTime());
  const token = `${id}.${randomToken()}`;
  const expiresAt = new Date(now.getTime() + ctx.config.REFRESH_TOKEN_TTL_DAYS * 24 * HOUR_MS);
  await trx.insertInto('refresh_tokens').values({ id, user_uid: userUid, family_id: familyId, token_hash: tokenHash(token), expires_at: expiresAt, created_at: now }).execute();
  return { token, expiresAt };
}

/** An access token for the user; `sessionId` (the refresh token family of the sign-in) ties it to that sign-in. */
export async function accessTokenFor(ctx: IdentityContext, userUid: string, sessionId?: string): Promise<{ user: SessionUser; accessToken: string }> {
  const now = ctx.clock.now();
  const record = await findUserByUid(ctx.db, userUid);
  if (!record) throw new AppError('unauthorized', identityMessages.badRefreshToken);
  const user = sessionUserOf(record, now, ctx.config.mode?.billing);
  return { user, accessToken: await signAccessToken(user, ctx.config.JWT_SECRET, now, ctx.config.ACCESS_TOKEN_TTL_SECONDS, sessionId) };
}

export async function login(ctx: IdentityContext, input: LoginRequest): Promise<IssuedSession> {
  const user = await findUserByEmail(ctx.db, input.email);
  const ok = await verifyPassword(user?.password_hash ?? (await dummyPasswordHash()), input.password);
  if (!user || !ok) throw new AppError('unauthorized', identityMessages.badCredentials);
  const now = ctx.clock.now();
  const family = uuidv7(now.getTime());
  const refresh = await ctx.db.transaction().execute((trx) => issueRefreshToken(trx, ctx, user.uid, family, now));
  const { user: sessionUser, accessToken } = await accessTokenFor(ctx, user.uid, family);
  return { user: sessionUser, accessToken, refreshToken: refresh.token, refreshExpiresAt: refresh.expiresAt };
}

/**
 * Rotates a refresh token. A token already rotated and presented again means it was copied: the whole
 * family (every token descending from that sign-in) is revoked, so both the thief and the user must
 * sign in again. The row lock serialises concurrent presentations of one token.
 */
export async function refreshSession(ctx: IdentityContext, presented: string | undefined): Promise<IssuedSession> {
  if (!presented) throw new AppError('unauthorized', identityMessages.noRefreshToken);
  const id = presented.split('.')[0] ?? '';
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new AppError('unauthorized', identityMessages.badRefreshToken);
  const now = ctx.clock.now();
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('refresh_tokens').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!row || row.token_hash !== tokenHash(presented)) return { kind: 'invalid' as const };
    if (row.revoked_at) return { kind: 'invalid' as const };
    if (row.rotated_at) {
      await trx.updateTable('refresh_tokens').set({ revoked_at: now }).where('family_id', '=', row.family_id).where('revoked_at', 'is', null).execute();
      return { kind: 'reuse' as const, userUid: row.user_uid as string };
    }
    if ((row.expires_at as Date).getTime() <= now.getTime()) return { kind: 'invalid' as const };
    await trx.updateTable('refresh_tokens').set({ rotated_at: now }).where('id', '=', id).execute();
    const next = await issueRefreshToken(trx, ctx, row.user_uid as string, row.family_id as string, now);
    return { kind: 'ok' as const, userUid: row.user_uid as string, family: row.family_id as string, next };
  });
  if (outcome.kind === 'reuse') {
    forgetPrincipal(outcome.userUid);
    throw new AppError('unauthorized', identityMessages.refreshReuse);
  }
  if (outcome.kind === 'invalid') throw new AppError('unauthorized', identityMessages.badRefreshToken);
  const { user, accessToken } = await accessTokenFor(ctx, outcome.userUid, outcome.family);
  return { user, accessToken, refreshToken: outcome.next.token, refreshExpiresAt: outcome.next.expiresAt };
}

/** Revokes the sign-in the refresh token belongs to. Unknown tokens are ignored: logout always succeeds. */
export async function logout(ctx: IdentityContext, presented: string | undefined): Promise<void> {
  const family = await familyOf(ctx.db, presented);
  if (family === null) return;
  const rows = await ctx.db.updateTable('refresh_tokens').set({ revoked_at: ctx.clock.now() }).where('family_id', '=', family).where('revoked_at', 'is', null).returning('user_uid').execute();
  // Its access tokens end with it: this process's cache re-reads the user's ended sign-ins at once.
  for (const uid of new Set(rows.map((r) => r.user_uid as string))) forgetPrincipal(uid);
}

/** Answers the same whether or not the e-mail exists; the mail is committed with its token. */
export async function requestPasswordReset(ctx: IdentityContext, email: string): Promise<void> {
  const user = await findUserByEmail(ctx.db, email);
  if (!user) return;
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    // Only the newest link works, as a refused link's resolution says: an older mail left in an inbox
    // must not set the password after a newer one was asked for.
    await trx.updateTable('user_tokens').set({ used_at: now }).where('user_uid', '=', user.uid).where('purpose', '=', 'reset').where('used_at', 'is', null).execute();
    const token = await createUserToken(trx, user.uid, 'reset', now, RESET_TOKEN_TTL_MS);
    await enqueueMail(trx, passwordResetMail(ctx.config.PUBLIC_URL, user.email, user.name, token), now);
  });
}

/** Sets a new password from a reset link; every open session of the user is revoked. */
export async function resetPassword(ctx: IdentityContext, token: string, input: PasswordResetBody): Promise<void> {
  const passwordHash = await hashPassword(input.new_password);
  const now = ctx.clock.now();
  // The user whose password was set, or false for a link refused.
  const resetFor = await ctx.db.transaction().execute(async (trx) => {
    const candidate = await trx.selectFrom('user_tokens as t').innerJoin('users as u', 'u.uid', 't.user_uid').select(['u.email']).where('t.token_hash', '=', tokenHash(token)).executeTakeFirst();
    // The e-mail must match the link's account: a token alone for someone else's address is refused
    // (and not consumed), with the same answer as an unknown token.
    if (!candidate || candidate.email !== input.email) return false;
    const userUid = await consumeToken(trx, token, 'reset', now);
    if (!userUid) return false;
    await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('uid', '=', userUid).execute();
    // Older reset links die with this one.
    await trx.updateTable('user_tokens').set({ used_at: now }).where('user_uid', '=', userUid).where('purpose', '=', 'reset').where('used_at', 'is', null).execute();
    await trx.updateTable('refresh_tokens').set({ revoked_at: now }).where('user_uid', '=', userUid).where('revoked_at', 'is', null).execute();
    return userUid;
  });
  if (!resetFor) throw new AppError('bad_request', identityMessages.resetInvalid, { resolution: identityMessages.resetResolution });
  forgetPrincipal(resetFor);
}

/**
 * Changes the password from the profile. Every other sign-in of the user ends with it (their refresh
 * tokens are revoked, as a reset revokes them all): a trader who changes the password because someone
 * else got in locks that someone out. The sign-in that made the change (its refresh cookie, `presented`)
 * stays, and so do its access tokens; those of every other sign-in are refused from the change on.
 */
export async function changePassword(ctx: IdentityContext, userUid: string, input: UpdatePasswordRequest, presented?: string): Promise<void> {
  const user = await findUserByUid(ctx.db, userUid);
  if (!user) throw new AppError('unauthorized', 'Not authenticated.');
  if (!(await verifyPassword(user.password_hash, input.old_password))) throw new AppError('bad_request', INCORRECT_OLD_PASSWORD);
  const passwordHash = await hashPassword(input.new_password);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('uid', '=', userUid).execute();
    const own = await familyOf(trx, presented, userUid);
    await trx
      .updateTable('refresh_tokens')
      .set({ revoked_at: now })
      .where('user_uid', '=', userUid)
      .where('revoked_at', 'is', null)
      .$if(own !== null, (q) => q.where('family_id', '!=', own!))
      .execute();
  });
  forgetPrincipal(userUid);
}

/**
 * The sign-in (token family) a presented refresh token belongs to, when the token is genuine (and, given
 * `userUid`, that user's); null for anything else.
 */
async function familyOf(db: Kysely<any>, presented: string | undefined, userUid?: string): Promise<string | null> {
  if (!presented) return null;
  const id = presented.split('.')[0] ?? '';
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const row = await db
    .selectFrom('refresh_tokens')
    .select(['family_id', 'token_hash'])
    .where('id', '=', id)
    .$if(userUid !== undefined, (q) => q.where('user_uid', '=', userUid!))
    .executeTakeFirst();
  return row && row.token_hash === tokenHash(presented) ? (row.family_id as string) : null;
}

/**
 * CLI: give an existing user its one role (it replaces the one it had); the role it had, or null when no
 * user has the e-mail.
 */
export async function setRole(ctx: IdentityContext, email: string, role: RoleName): Promise<{ previous: RoleName } | null> {
  return ctx.db.transaction().execute(async (trx) => {
    const user = await trx.selectFrom('users').select(['uid', 'role']).where('email', '=', email.trim().toLowerCase()).forUpdate().executeTakeFirst();
    if (!user) return null;
    await trx.updateTable('users').set({ role, account_confirmed: true, updated_at: ctx.clock.now() }).where('uid', '=', user.uid).execute();
    forgetPrincipal(user.uid as string);
    return { previous: user.role as RoleName };
  });
}
