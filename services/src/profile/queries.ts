import type { Kysely } from 'kysely';
import type { ContactMessage, ContactMessageSummary, ProfileChange } from '@oj/contracts/users';

interface MessageRow {
  id: string;
  user_uid: string;
  user_email: string;
  user_name: string;
  subject: string;
  message: string;
  mail_id: string | null;
  created_at: Date;
}

const PREVIEW = 120;

const toMessage = (r: MessageRow): ContactMessage => ({
  id: r.id,
  user_uid: r.user_uid,
  user_email: r.user_email,
  user_name: r.user_name,
  subject: r.subject,
  message: r.message,
  created_at: r.created_at.toISOString(),
  mailed: r.mail_id !== null,
});

/** Newest first; a page of summaries (the full text is read one message at a time). */
export async function listContactMessages(db: Kysely<any>, page: number, size: number): Promise<{ items: ContactMessageSummary[]; page: number; pages: number; size: number; total: number }> {
  const { count } = (await db.selectFrom('contact_messages').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()) as { count: number };
  const total = Number(count);
  const rows = (await db
    .selectFrom('contact_messages')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(size)
    .offset((page - 1) * size)
    .execute()) as MessageRow[];
  const items = rows.map((r) => {
    const { message, ...rest } = toMessage(r);
    return { ...rest, preview: message.length > PREVIEW ? `${message.slice(0, PREVIEW)}…` : message };
  });
  return { items, page, pages: Math.max(1, Math.ceil(total / size)), size, total };
}

export async function findContactMessage(db: Kysely<any>, id: string): Promise<ContactMessage | undefined> {
  const row = (await db.selectFrom('contact_messages').selectAll().where('id', '=', id).executeTakeFirst()) as MessageRow | undefined;
  return row && toMessage(row);
}

/** One user's profile history, newest first. */
export async function listProfileChanges(db: Kysely<any>, userUid: string): Promise<ProfileChange[]> {
  const rows = (await db
    .selectFrom('profile_changes')
    .select(['field', 'old_value', 'new_value', 'changed_by', 'changed_at'])
    .where('user_uid', '=', userUid)
    .orderBy('changed_at', 'desc')
    .orderBy('id', 'desc')
    .execute()) as { field: ProfileChange['field']; old_value: string | null; new_value: string | null; changed_by: string; changed_at: Date }[];
  return rows.map((r) => ({ ...r, changed_at: r.changed_at.toISOString() }));
}
