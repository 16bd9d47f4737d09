import { sql, type Kysely, type Selectable } from 'kysely';
import { computeDailyRecords, dayKey, splitDayKey, type DailyPremiumRecord, type DayTrade } from './compute.ts';

export type DailyPremiumTable = DailyPremiumRecord;
export type DailyPremiumRow = Selectable<DailyPremiumTable>;

export async function createDailyPremiumTable(db: Kysely<any>, t: string): Promise<void> {
  await sql`create table if not exists ${sql.table(t)} (
    user_id text not null,
    income_date date not null,
    np double precision not null,
    nf double precision not null,
    nd double precision not null,
    nep integer not null,
    otc integer not null,
    ctc integer not null,
    iw integer not null,
    npc double precision not null,
    cpt double precision not null,
    cg double precision not null,
    hp integer not null,
    pr double precision not null,
    ttf double precision not null,
    incap double precision not null,
    wdc double precision not null,
    tickers json not null,
    ct json not null,
    sg json not null,
    dg json not null,
    snpc json not null,
    tnpc json not null,
    primary key (user_id, income_date)
  )`.execute(db);
}

const dayTradeColumns = sql.raw('uid, user_id, ticker, su, tod, tcd, ed, status, ot, ct, pao, pac, npc, nfto, nftc, nd, c, cg, held, cs, pf');

/**
 * Recomputes the records of the touched (user, date) keys from the trades rows as they are now (so
 * call it after the batch's trades are written, in the same transaction): one read for all keys of
 * the batch, one multi-row upsert, one delete for the days left without any trade.
 */
export async function recomputeDays(trx: Kysely<any>, tables: { trades: string; daily_premium: string }, keys: ReadonlySet<string>): Promise<void> {
  if (!keys.size) return;
  const T = sql.table(tables.trades);
  const keyJson = JSON.stringify([...keys].map((k) => {
    const [u, d] = splitDayKey(k);
    return { u, d };
  }));
  // Lateral joins make each key an index lookup ((user_id, tod) and (user_id, tcd)) whatever the
  // planner guesses about the key list; a trade opened and closed on two touched days comes back twice.
  const { rows } = await sql<DayTrade>`
    with k as materialized (select u, d from json_to_recordset(${keyJson}::json) as x(u text, d date))
    select t.* from k cross join lateral (select ${dayTradeColumns} from ${T} where user_id = k.u and tod = k.d) t
    union all
    select t.* from k cross join lateral (select ${dayTradeColumns} from ${T} where user_id = k.u and tcd = k.d) t`.execute(trx);
  const seen = new Set<string>();
  const trades = rows.filter((r) => {
    const k = `${r.user_id}\u0000${r.uid}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  const records = computeDailyRecords(keys, trades);
  const D = sql.table(tables.daily_premium);
  if (records.size) {
    await sql`insert into ${D} select * from json_populate_recordset(null::${D}, ${JSON.stringify([...records.values()])}::json)
      on conflict (user_id, income_date) do update set
        np = excluded.np, nf = excluded.nf, nd = excluded.nd, nep = excluded.nep, otc = excluded.otc, ctc = excluded.ctc, iw = excluded.iw,
        npc = excluded.npc, cpt = excluded.cpt, cg = excluded.cg, hp = excluded.hp, pr = excluded.pr, ttf = excluded.ttf, incap = excluded.incap,
        wdc = excluded.wdc, tickers = excluded.tickers, ct = excluded.ct, sg = excluded.sg, dg = excluded.dg, snpc = excluded.snpc, tnpc = excluded.tnpc`.execute(trx);
  }
  const gone = [...keys].filter((k) => !records.has(k)).map(splitDayKey);
  if (gone.length) {
    await sql`delete from ${D} where (user_id, income_date) in (
      select u, d::date from json_to_recordset(${JSON.stringify(gone.map(([u, d]) => ({ u, d })))}::json) as x(u text, d text))`.execute(trx);
  }
}

const insertRecords = (trx: Kysely<any>, table: string, records: readonly DailyPremiumRecord[]) =>
  sql`insert into ${sql.table(table)} select * from json_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(records)}::json)`.execute(trx);

/**
 * Recomputes every record of a version from its trade rows, as the end of a bulk rebuild
 * (`finishBulk`): the table is emptied, then users are taken in chunks of about `chunkTrades` trades,
 * each chunk one read, one computation and multi-row inserts. The next chunk is read, and the current
 * one computed, while the previous one is written. Idempotent: a rebuild killed here runs it again.
 */
export async function recomputeAllDays(db: Kysely<any>, tables: { trades: string; daily_premium: string }, chunkTrades = 40_000): Promise<void> {
  const T = sql.table(tables.trades);
  await sql`truncate ${sql.table(tables.daily_premium)}`.execute(db);
  const perUser = await sql<{ user_id: string; n: number }>`select user_id, count(*)::int as n from ${T} group by user_id order by user_id`.execute(db);
  const chunks: string[][] = [];
  let chunk: string[] = [];
  let size = 0;
  for (const { user_id, n } of perUser.rows) {
    chunk.push(user_id);
    size += Number(n);
    if (size >= chunkTrades) {
      chunks.push(chunk);
      chunk = [];
      size = 0;
    }
  }
  if (chunk.length) chunks.push(chunk);
  const read = (users: string[]) => sql<DayTrade>`select ${dayTradeColumns} from ${T} where user_id = any(${users})`.execute(db).then((r) => r.rows);
  const write = (records: DailyPremiumRecord[]) =>
    db.transaction().execute(async (trx) => {
      // Not live yet (see the trades projection's bulk batches): no need to wait for the WAL flush.
      await sql`set local synchronous_commit = off`.execute(trx);
      for (let i = 0; i < records.length; i += 10_000) await insertRecords(trx, tables.daily_premium, records.slice(i, i + 10_000));
    });
  let reading = chunks[0] ? read(chunks[0]) : null;
  let writing: Promise<unknown> = Promise.resolve();
  for (let i = 0; reading; i++) {
    const trades = await reading;
    reading = chunks[i + 1] ? read(chunks[i + 1]!) : null;
    reading?.catch(() => {}); // awaited next round; a failure before then must not be unhandled
    const keys = new Set<string>();
    for (const t of trades) {
      keys.add(dayKey(t.user_id, t.tod));
      if (t.tcd !== null) keys.add(dayKey(t.user_id, t.tcd));
    }
    const records = [...computeDailyRecords(keys, trades).values()];
    await writing;
    writing = write(records);
    writing.catch(() => {}); // awaited next round, or below
  }
  await writing;
}

export { dayKey };
