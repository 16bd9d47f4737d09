import { sql } from 'kysely';
import { lineageStreamId, userStreamPrefix } from '@oj/contracts/journal-events';
import { emptyLineage, type LineageState, type SplitRecord } from '@oj/contracts/lineage-fold';
import type { TradeRecord } from '@oj/contracts/trade-record';
import type { ProjectedEvent } from '@oj/infra/eventstore/port';
import type { ProjectionContext } from '../runtime/projection.ts';
import { splitRow, splitsInsert } from '../split-history/tables.ts';
import { dayTradesAfterWrite, recomputeDays } from '../daily-premium/tables.ts';
import { dayKey, type DayTrade } from '../daily-premium/compute.ts';
import { asTables, deleteEmptiedCounts, tradeCountsUpsert, listOf, rowToRecord, tradeRowOf, tradeUpsertSet, type TradeRow, type TradesTable } from './tables.ts';
import { foldEvent } from './user-rows.ts';

/** A row of the load: a lineage's key and guard row, and one of its trade rows (all null when it has none). */
type LoadedRow = { k_u: string; k_l: string; g_rev: number | null; g_has_roll: boolean | null } & ({ [K in keyof TradeRow]: TradeRow[K] | null });

interface Loaded {
  state: LineageState;
  /** The records as read, by uid: a record whose object is still the same after the fold is unchanged. */
  before: Map<string, TradeRecord>;
  revBefore: number;
  splitsBefore: number;
}

/** Applies journal events: loads the touched lineages in one read, folds in memory, writes back in bulk. */
export async function applyTradeEvents(ctx: ProjectionContext, events: readonly ProjectedEvent[]): Promise<void> {
  const tables = asTables(ctx.tables);
  const trx = ctx.trx;
  const byLineage = new Map<string, ProjectedEvent[]>();
  for (const e of events) {
    const prefix = userStreamPrefix(e.metadata.userId);
    if (!e.streamId.startsWith(prefix)) continue;
    let list = byLineage.get(e.streamId);
    if (!list) byLineage.set(e.streamId, (list = []));
    list.push(e);
  }
  if (!byLineage.size) return;
  // A bulk batch of a version that is not live yet: if a crash loses its commit, the rebuild resumes
  // before it. So it need not wait for the WAL flush. (Live batches keep the default: BullMQ's
  // bookkeeping in Redis must not run ahead of what is durable; so do a switch's catch-up and a one-user
  // recompute, which write the live version.)
  if (ctx.mode === 'bulk') await sql`set local synchronous_commit = off`.execute(trx);
  // Lineages are keyed by (user, lineage id): the stream names both.
  const keyJson = JSON.stringify(
    [...byLineage].map(([streamId, evs]) => {
      const u = evs[0]!.metadata.userId;
      return { u, l: streamId.slice(userStreamPrefix(u).length) };
    }),
  );
  // A one-user recompute does not come here (`recomputeUser` below): every batch loads what it touches.
  // One statement for both: each lineage's guard row (its revision) beside each of its trade rows (the
  // guard's columns repeated on each; a lineage without trade rows comes once, the trade's columns null).
  const rows = (
    await sql<LoadedRow>`
    select k.u as k_u, k.l as k_l, g.rev as g_rev, g.has_roll as g_has_roll, t.*
    from json_to_recordset(${keyJson}::json) as k(u text, l text)
    left join ${sql.table(tables.trade_lineages)} g on g.user_id = k.u and g.lid = k.l
    left join ${sql.table(tables.trades)} t on t.user_id = k.u and t.lid = k.l`.execute(trx)
  ).rows;

  const loaded = new Map<string, Loaded>();
  for (const [streamId, evs] of byLineage) {
    const userId = evs[0]!.metadata.userId;
    const state = emptyLineage(userId, streamId.slice(userStreamPrefix(userId).length));
    loaded.set(lineageStreamId(userId, state.lineageId), { state, before: new Map(), revBefore: -1, splitsBefore: 0 });
  }
  for (const row of rows) {
    const l = loaded.get(lineageStreamId(row.k_u, row.k_l))!;
    if (row.g_rev !== null) {
      l.state.revision = l.revBefore = Number(row.g_rev);
      l.state.hasRollHistory = row.g_has_roll === true;
    }
    if (row.uid === null) continue;
    const rec = rowToRecord(row as TradeRow);
    l.state.trades.set(rec.uid, rec);
    l.before.set(rec.uid, rec);
  }

  for (const [streamId, evs] of byLineage) {
    const { state } = loaded.get(streamId)!;
    for (const e of evs) foldEvent(state, e);
  }

  const upserts: TradesTable[] = [];
  const deleted: Array<{ u: string; id: string }> = [];
  const lineageRows: Array<{ lid: string; user_id: string; rev: number; has_roll: boolean }> = [];
  const splits: SplitRecord[] = [];
  const days = new Set<string>();
  const counts = new Map<string, { u: string; list: number; d: number }>();
  const count = (r: TradeRecord, d: number) => {
    const list = listOf(r.status);
    const k = `${r.userId}\u0000${list}`;
    const c = counts.get(k) ?? { u: r.userId, list, d: 0 };
    c.d += d;
    counts.set(k, c);
  };
  const touch = (r: TradeRecord) => {
    days.add(dayKey(r.userId, r.openDate));
    if (r.close) days.add(dayKey(r.userId, r.close.closeDate));
  };
  for (const { state, before, revBefore } of loaded.values()) {
    if (state.revision === revBefore) continue;
    lineageRows.push({ lid: state.lineageId, user_id: state.userId, rev: state.revision, has_roll: state.hasRollHistory });
    splits.push(...state.splits);
    for (const [uid, old] of before) {
      const now = state.trades.get(uid);
      if (now === old) continue;
      touch(old);
      count(old, -1);
      if (!now) deleted.push({ u: state.userId, id: uid });
    }
    for (const [uid, rec] of state.trades) {
      if (before.get(uid) === rec) continue;
      touch(rec);
      count(rec, 1);
      // Closed trades' figures do not depend on the date; open trades' days open are counted when read.
      upserts.push(tradeRowOf(rec));
    }
  }

  // Two statements write the batch. The first writes its rows, each table in a data-modifying CTE of its
  // own, and reads the touched days' trades as it leaves them; the second writes the day records. (They
  // were six statements: a lane batch is a dozen round trips, and on two cores each one waits its turn
  // for the CPU with the lanes beside it.) In bulk, a day is touched by many batches (opens, then closes
  // and rolls weeks later): finishBulk computes every day once from the finished trade rows instead.
  const T = sql.table(tables.trades);
  const dayKeys = ctx.mode === 'bulk' ? new Set<string>() : days;
  const deltas = [...counts.values()].filter((c) => c.d !== 0);
  const replaced = [...deleted, ...upserts.map((r) => ({ u: r.user_id, id: r.uid }))];
  const parts = [
    sql`written as materialized (select * from json_populate_recordset(null::${T}, ${JSON.stringify(upserts)}::json))`,
    sql`replaced as materialized (select u, id from json_to_recordset(${JSON.stringify(replaced)}::json) as r(u text, id text))`,
    sql`upserted as (insert into ${T} select * from written on conflict (user_id, uid) do update set ${tradeUpsertSet})`,
  ];
  if (deleted.length) parts.push(sql`deleted as (delete from ${T} where (user_id, uid) in (select u, id from json_to_recordset(${JSON.stringify(deleted)}::json) as d(u text, id text)))`);
  if (lineageRows.length) {
    const L = sql.table(tables.trade_lineages);
    parts.push(sql`lineages as (insert into ${L} select * from json_populate_recordset(null::${L}, ${JSON.stringify(lineageRows)}::json)
      on conflict (user_id, lid) do update set rev = excluded.rev, has_roll = excluded.has_roll)`);
  }
  if (deltas.length) parts.push(sql`counts as (${tradeCountsUpsert(tables.trade_counts, deltas)})`);
  if (splits.length) {
    const S = sql.table(tables.split_history);
    // The day records read the new split records beside the stored ones: the statement does not see its own writes.
    parts.push(sql`written_splits as materialized (select * from json_populate_recordset(null::${S}, ${JSON.stringify(splits.map(splitRow))}::json))`);
    parts.push(sql`splits as (${splitsInsert(tables.split_history, splits)})`);
  }
  const writtenSplits = splits.length ? sql`written_splits` : sql`(select * from ${sql.table(tables.split_history)} where false)`;
  const read = dayKeys.size ? dayTradesAfterWrite(tables, dayKeys, sql`replaced`, sql`written`, writtenSplits) : sql<DayTrade>`select null as uid where false`;
  const { rows: dayTrades } = await sql<DayTrade>`with ${sql.join(parts)} ${read}`.execute(trx);
  await deleteEmptiedCounts(trx, tables.trade_counts, deltas);
  await recomputeDays(trx, tables.daily_premium, dayKeys, dayTrades);
}
