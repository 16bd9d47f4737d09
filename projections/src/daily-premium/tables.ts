import { sql, type Kysely, type Selectable } from 'kysely';
import { computeDailyRecords, dayKey, splitDayKey, type DailyPremiumRecord, type DayTrade } from './compute.ts';

export type DailyPremiumTable = DailyPremiumRecord;
export type DailyPremiumRow = Selectable<DailyPremiumTable>;

export async function createDailyPremiumTable(db: Kysely<any>, t: string): Promise<void> {
  await sql`create table if not exists ${sql.table(t)} (
    user_id text not null,
    income_date date not null,
    np numeric not null,
    nf numeric not null,
    nd numeric not null,
    nep integer not null,
    otc integer not null,
    ctc integer not null,
    iw integer not null,
    npc numeric not null,
    cpt numeric not null,
    cg numeric not null,
    hp integer not null,
    pr numeric not null,
    ttf numeric not null,
    incap numeric not null,
    wdc numeric not null,
    tickers jsonb not null,
    ct jsonb not null,
    sg jsonb not null,
    dg jsonb not null,
    snpc jsonb not null,
    tnpc jsonb not null,
    primary key (user_id, income_date)
  )`.execute(db);
}

const dayTradeColumns = sql.raw('user_id, ticker, su, tod, tcd, ed, status, ot, ct, pao, pac, npc, nfto, nftc, nd, c, cg, held, cs, pf');

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
  const { rows } = await sql<DayTrade>`
    with k as (select u, d from json_to_recordset(${keyJson}::json) as x(u text, d date))
    select ${dayTradeColumns} from ${T} where (user_id, tod) in (select u, d from k)
    union all
    select ${dayTradeColumns} from ${T} where tcd is not null and (user_id, tcd) in (select u, d from k)
      and (user_id, tod) not in (select u, d from k)`.execute(trx);
  const records = computeDailyRecords(keys, rows);
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

export { dayKey };
