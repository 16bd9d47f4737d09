import { hostname, userInfo } from 'node:os';
import { sql, type Kysely } from 'kysely';
import type { ActionsQuery, ActionsResponse, OperatorAction } from '@oj/contracts/operations';
import { uuidv7 } from '@oj/infra/ids';
import { AppError } from '../app/errors.ts';
import type { Principal } from '../app/principal.ts';

/** Who acted: a console user (their principal), the CLI's operating-system user, or the system itself. */
export type ActionActor = Pick<Principal, 'userId' | 'email'> & { role: string };

/**
 * The actor of `npm run projections`: no one signs in to it, so the log names what is known, the
 * operating-system user and the host the command ran on, as such (role `CLI`), never an app user.
 */
export function cliActor(): ActionActor {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // A uid with no passwd entry (a container run as an arbitrary uid).
    user = process.env.USER ?? process.env.LOGNAME ?? `uid ${process.getuid?.() ?? '?'}`;
  }
  const who = `${user}@${hostname()}`;
  return { userId: `cli:${who}`, email: `CLI (${who})`, role: 'CLI' };
}

/** The actor of an entry the console writes about work that ended without anyone asking (a rebuild's end). */
export const SYSTEM_ACTOR: ActionActor = { userId: 'system', email: 'rebuild runner', role: 'system' };

export type ActionKind = OperatorAction['action'];
export type ActionOutcome = OperatorAction['outcome'];

export interface ActionInput {
  action: ActionKind;
  projection: string;
  version?: number | null;
  userId?: string | null;
  outcome: ActionOutcome;
  message: string;
  /**
   * Names an entry that must be written once, whoever writes it: a rebuild's end is seen by every
   * gateway's console and by the CLI that follows it. A second entry with the same ref is not written.
   */
  ref?: string | null;
}

function toAction(r: any): OperatorAction {
  return {
    id: r.id,
    at: (r.at instanceof Date ? r.at : new Date(r.at)).toISOString(),
    actorId: r.actor_id,
    actorEmail: r.actor_email,
    actorRole: r.actor_role,
    action: r.action,
    projection: r.projection,
    version: r.version === null ? null : Number(r.version),
    userId: r.user_id ?? null,
    outcome: r.outcome,
    message: r.message,
  };
}

/**
 * Appends one entry to the operator-actions log (the table refuses any other write). The time is the
 * database's wall clock, not the app's Clock: this is an audit record of when it really happened.
 */
export async function recordAction(db: Kysely<any>, actor: ActionActor, input: ActionInput): Promise<OperatorAction> {
  const row = await insertAction(db, actor, input);
  if (!row) throw new Error(`An operator action with ref ${input.ref} is already recorded`);
  return row;
}

/** `recordAction` for an entry with a `ref`: null when that entry was already written (by anyone). */
export async function recordActionOnce(db: Kysely<any>, actor: ActionActor, input: ActionInput & { ref: string }): Promise<OperatorAction | null> {
  return insertAction(db, actor, input);
}

async function insertAction(db: Kysely<any>, actor: ActionActor, input: ActionInput): Promise<OperatorAction | null> {
  const row = await sql<any>`insert into operator_actions (id, at, actor_id, actor_email, actor_role, action, projection, version, user_id, outcome, message, ref)
    values (${uuidv7()}, clock_timestamp(), ${actor.userId}, ${actor.email}, ${actor.role}, ${input.action}, ${input.projection}, ${input.version ?? null},
      ${input.userId ?? null}, ${input.outcome}, ${input.message}, ${input.ref ?? null})
    on conflict (ref) where ref is not null do nothing
    returning *`.execute(db);
  return row.rows[0] ? toAction(row.rows[0]) : null;
}

/**
 * One page of the log, newest first: the `limit` entries after `before` (an entry's id) in that order, and
 * the `before` of the next page (null at the oldest). Keyset paging on the (at, id) index: an entry
 * recorded while an operator pages back neither shifts the older pages nor shows twice. An id that names
 * no entry is refused (404) rather than read as "from the newest".
 */
export async function listActions(db: Kysely<any>, query: ActionsQuery): Promise<ActionsResponse> {
  if (query.before !== undefined) {
    const found = await sql<{ id: string }>`select id from operator_actions where id = ${query.before}`.execute(db);
    if (found.rows.length === 0) throw new AppError('not_found', 'No operator action has this id.');
  }
  const after = query.before === undefined ? sql`true` : sql`(at, id) < (select at, id from operator_actions where id = ${query.before})`;
  const rows = await sql<any>`select * from operator_actions where ${after} order by at desc, id desc limit ${query.limit + 1}`.execute(db);
  const actions = rows.rows.slice(0, query.limit).map(toAction);
  return { actions, nextBefore: rows.rows.length > query.limit ? actions[actions.length - 1]!.id : null };
}
