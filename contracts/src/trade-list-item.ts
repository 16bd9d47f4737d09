import { z } from 'zod';
import { isoDate } from './common.ts';

/**
 * A trade as every list, answer and dialog sees it: the spec's short names (part 1 §3). Commands answer
 * it built from the folded lineage; the read models store it. The derived figures (c, npc, ror, aroc,
 * cg, do, nftc...) come from one formulas module (projections/src/formulas), so both agree.
 */
export const tradeListItem = z.object({
  uid: z.string(),
  /** Lineage (stream) the trade belongs to: the opening trade's uid. */
  lid: z.string(),
  ticker: z.string(),
  /** Strike prices, one per leg. */
  sp: z.array(z.number()),
  /** Collateral (capital at risk), USD. */
  c: z.number(),
  tod: isoDate,
  tcd: isoDate.nullable(),
  ed: isoDate,
  /** 1 Open, 2 Closed, 3 Rolled, 4 Assigned, 5 Called Away, 6 Expired Worthless, 7 Exercised. */
  status: z.number().int(),
  /** Premium at open, total for all contracts. */
  pao: z.number(),
  pac: z.number().nullable(),
  /** Net premium captured (closed trades): signed open premium plus signed close premium. */
  npc: z.number().nullable(),
  nd: z.number(),
  cs: z.number().int(),
  notes: z.string(),
  tags: z.array(z.string()),
  /** Open transaction: 1 credit/STO, 2 debit/BTO. */
  ot: z.number().int(),
  /** Close transaction: 1 credit, 2 debit, 3 neutral. */
  ct: z.number().int().nullable(),
  su: z.string(),
  au: z.string(),
  /** Ancestor uid: the two-leg trade this one was split from. */
  auid: z.string().nullable(),
  spo: z.number().nullable(),
  cb: z.number().nullable(),
  lv: z.number().nullable(),
  /** Rolled-from: the uid of the trade this one was rolled from. */
  rf: z.string().nullable(),
  /** The trade a partial close left this one as the remainder of. */
  pf: z.string().nullable(),
  /** Last updated (server time, ISO-8601). */
  up: z.string(),
  nfto: z.number(),
  nftc: z.number().nullable(),
  /** Return on risk, percent (closed trades). */
  ror: z.number().nullable(),
  /** Annualised return on capital, percent (closed trades). */
  aroc: z.number().nullable(),
  /** Capital gain on assignment / call-away / exercise, USD. */
  cg: z.number().nullable(),
  /** Days open (open trades: to today) or held (closed trades). */
  do: z.number().int(),
  /**
   * Disposition of a finished trade (docs/formulas.md): Early Exit (closed before its expiration date),
   * Closed (on it), Rolled, Assigned, Called Away, Expired, Exercised; null while open. The same
   * classification as the dashboard's and pulse's disposition charts.
   */
  dis: z.string().nullable(),
  /** True when the lineage has a roll in it (the row menu shows Roll History). */
  rh: z.boolean(),
  created_at: z.string(),
});
export type TradeListItem = z.infer<typeof tradeListItem>;
