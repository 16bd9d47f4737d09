import type { Kysely } from 'kysely';
import type { Clock } from '@oj/infra/clock';
import type { Config } from '@oj/infra/config';
import { uuidv7 } from '@oj/infra/ids';
import {
  MAX_PROFILE_IMAGE_BYTES,
  PROFILE_IMAGE_MAX_SIDE,
  userImageMessages,
  usernameMessages,
  type ContactUsRequest,
  type CurrentUser,
  type ImageFor,
  type ProfileField,
  type UserImageResponse,
} from '@oj/contracts/users';
import { AppError } from '../app/errors.ts';
import type { Principal } from '../app/principal.ts';
import { removeStoredImage, storeImage } from '../accounts/images.ts';
import { enqueueMail } from '../mail/outbox.ts';
import { currentUserOf, findUserByUid } from '../identity/users.ts';
import { contactMail } from './contact-mail.ts';

export interface ProfileContext {
  db: Kysely<any>;
  clock: Clock;
  config: Pick<Config, 'DATA_DIR' | 'SUPPORT_EMAIL' | 'mode'>;
}

/** The validated body of PATCH /users/update-profile ('' already means "clear"). */
export interface ProfileUpdate {
  name?: string | undefined;
  username?: string | undefined;
  website?: string | undefined;
}

type ChangedField = ProfileField | ImageFor;
const columnOf: Record<ChangedField, 'name' | 'username' | 'website' | 'avatar' | 'bg_image'> = {
  name: 'name',
  username: 'username',
  website: 'website',
  avatar: 'avatar',
  cover: 'bg_image',
};

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

async function currentUserOrUnauthorized(ctx: ProfileContext, userId: string): Promise<CurrentUser> {
  const user = await findUserByUid(ctx.db, userId);
  if (!user) throw new AppError('unauthorized', 'Not authenticated.');
  // The answer is the session user: in self-hosted mode its subscription shows as active, as everywhere.
  return currentUserOf(user, ctx.clock.now(), ctx.config.mode.billing);
}

/**
 * Applies the changed profile fields and records each change (old and new value, who, when) in the
 * append-only profile_changes table, in one transaction: a change is never applied without its record.
 * Fields sent with their current value are no change and leave no record.
 */
export async function updateProfile(ctx: ProfileContext, principal: Principal, input: ProfileUpdate): Promise<CurrentUser> {
  const now = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const row = (await trx.selectFrom('users').select(['name', 'username', 'website']).where('uid', '=', principal.userId).forUpdate().executeTakeFirst()) as
        | { name: string; username: string | null; website: string | null }
        | undefined;
      if (!row) throw new AppError('unauthorized', 'Not authenticated.');
      const wanted: Record<ProfileField, string | null | undefined> = {
        name: input.name,
        username: input.username === undefined ? undefined : input.username || null,
        website: input.website === undefined ? undefined : input.website || null,
      };
      const changes = (Object.keys(wanted) as ProfileField[])
        .filter((field) => wanted[field] !== undefined && wanted[field] !== row[field])
        .map((field) => ({ field, old_value: row[field], new_value: wanted[field] ?? null }));
      if (changes.length === 0) return;
      if (wanted.username && changes.some((c) => c.field === 'username')) {
        // Checked first for a clear answer; the unique index settles a race between two claimants.
        const holder = await trx.selectFrom('users').select('uid').where('username', '=', wanted.username).where('uid', '<>', principal.userId).executeTakeFirst();
        if (holder) throw new AppError('conflict', usernameMessages.taken);
      }
      await trx
        .updateTable('users')
        .set({ ...Object.fromEntries(changes.map((c) => [columnOf[c.field], c.new_value])), updated_at: now })
        .where('uid', '=', principal.userId)
        .execute();
      await trx
        .insertInto('profile_changes')
        .values(changes.map((c, i) => ({ id: uuidv7(now.getTime() + i), user_uid: principal.userId, ...c, changed_by: principal.userId, changed_at: now })))
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('conflict', usernameMessages.taken);
    throw error;
  }
  return currentUserOrUnauthorized(ctx, principal.userId);
}

/**
 * Avatar or cover: decoded, resized to 600 px, re-encoded as JPEG (metadata dropped) and stored by the
 * accounts module's image store, which also serves /uploads/:file. The replaced file is deleted once the
 * new one is recorded: served publicly, it would stay reachable by its old URL (QA). The change record
 * keeps the old URL as what it was; it no longer serves a picture.
 */
export async function setUserImage(ctx: ProfileContext, principal: Principal, image: string, imageFor: ImageFor): Promise<UserImageResponse> {
  // Decoded size from the base64 length (padding aside), before anything is decoded.
  const base64Length = image.replace(/^data:[^;,]*;base64,/, '').replace(/\s+/g, '').length;
  if (Math.floor((base64Length * 3) / 4) > MAX_PROFILE_IMAGE_BYTES + 2) throw new AppError('payload_too_large', userImageMessages.tooLarge);
  const { url } = await storeImage(ctx.config.DATA_DIR, imageFor, image, PROFILE_IMAGE_MAX_SIDE);
  const column = columnOf[imageFor];
  const now = ctx.clock.now();
  let replaced: string | null = null;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const row = (await trx.selectFrom('users').select(['avatar', 'bg_image']).where('uid', '=', principal.userId).forUpdate().executeTakeFirst()) as
        | { avatar: string | null; bg_image: string | null }
        | undefined;
      if (!row) throw new AppError('unauthorized', 'Not authenticated.');
      replaced = row[column as 'avatar' | 'bg_image'];
      await trx.updateTable('users').set({ [column]: url, updated_at: now }).where('uid', '=', principal.userId).execute();
      await trx
        .insertInto('profile_changes')
        .values({ id: uuidv7(now.getTime()), user_uid: principal.userId, field: imageFor, old_value: replaced, new_value: url, changed_by: principal.userId, changed_at: now })
        .execute();
    });
  } catch (error) {
    await removeStoredImage(ctx.config.DATA_DIR, url);
    throw error;
  }
  // Only after the commit: until then the old picture is the profile's.
  await removeStoredImage(ctx.config.DATA_DIR, replaced);
  return { image_for: imageFor, image_url: url, url };
}

/**
 * Stores a contact message and, when a support address is configured, queues its mail in the same
 * transaction (the outbox delivers it): the message is never stored without its mail or mailed without
 * being stored.
 */
export async function sendContactMessage(ctx: ProfileContext, principal: Principal, input: ContactUsRequest): Promise<{ id: string }> {
  const now = ctx.clock.now();
  const id = uuidv7(now.getTime());
  await ctx.db.transaction().execute(async (trx) => {
    const user = (await trx.selectFrom('users').select(['email', 'name']).where('uid', '=', principal.userId).executeTakeFirst()) as { email: string; name: string } | undefined;
    if (!user) throw new AppError('unauthorized', 'Not authenticated.');
    const support = ctx.config.SUPPORT_EMAIL;
    const mailId = support
      ? await enqueueMail(trx, contactMail(support, { id, userId: principal.userId, email: user.email, name: user.name, subject: input.subject, message: input.message }), now)
      : null;
    await trx
      .insertInto('contact_messages')
      .values({ id, user_uid: principal.userId, user_email: user.email, user_name: user.name, subject: input.subject, message: input.message, mail_id: mailId, created_at: now })
      .execute();
  });
  return { id };
}
