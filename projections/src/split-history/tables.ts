import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { SplitParent, SplitRecord } from '@oj/contracts/lineage-fold';

/** One row per broken two-leg trade: the ancestor record of part 1 §3, keyed by its uid (the legs' `auid`). */
export interface SplitHistoryTable {
  auid: string;
  user_id: string;
  lid: string;
  /** The legs' uids, closed leg first. */
  trades: string[];
  su: string;
  gene: SplitRecord['gene'];
  /** The broken trade's own links and strikes (the roll history's node for it). */
  parent: SplitParent;
  created_at: string;
}
export type SplitHistoryRow = Selectable<SplitHistoryTable>;

export async function createSplitHistoryTable(db: Kysely<any>, t: string): Promise<void> {
  await sql`create table if not exists ${sql.table(t)} (
    auid text not null,
    user_id text not null,
    lid text not null,
    trades jsonb not null,
    su text not null,
    gene jsonb not null,
    parent jsonb not null,
    created_at text not null,
    primary key (user_id, auid)
  )`.execute(db);
}

export const splitRow = (s: SplitRecord): SplitHistoryTable => ({
  auid: s.auid,
  user_id: s.userId,
  lid: s.lineageId,
  trades: [...s.trades],
  su: s.su,
  gene: s.gene,
  parent: s.parent,
  created_at: s.createdAt,
});

/** Inserts new ancestor records; a split is applied once per lineage revision, so a conflict is a replay. */
export async function insertSplits(trx: Kysely<any>, t: string, splits: readonly SplitRecord[]): Promise<void> {
  if (!splits.length) return;
  await splitsInsert(t, splits).execute(trx);
}

/** `insertSplits`'s statement, for a caller that writes it as a part of its own (a data-modifying CTE). */
export const splitsInsert = (t: string, splits: readonly SplitRecord[]): RawBuilder<unknown> =>
  sql`insert into ${sql.table(t)} select * from json_populate_recordset(null::${sql.table(t)}, ${JSON.stringify(splits.map(splitRow))}::json)
    on conflict (user_id, auid) do nothing`;

export async function deleteUserSplits(trx: Kysely<any>, t: string, userId: string): Promise<void> {
  await sql`delete from ${sql.table(t)} where user_id = ${userId}`.execute(trx);
}
