import { z } from 'zod';
import { isoDate } from './common.ts';
import type { UpcasterRegistry } from './events.ts';

/**
 * The trade journal's events. One stream per position lineage: `trade-<userId>.<lineageId>`, where
 * the lineage id is the uid of the opening trade. Events record the facts as the trader entered
 * them and the structure (what was closed, what was opened, rolled from, split from). They never
 * store derived metrics (net premium captured, ROR, ARR, collateral, days held): those are formulas
 * of the read models, so a formula change is a rebuild, not a migration.
 *
 * Money amounts are totals for all contracts, in USD, as entered (premium = price x 100 x contracts).
 */

/** 1 credit (STO), 2 debit (BTO). */
export const openTransaction = z.union([z.literal(1), z.literal(2)]);
/** 1 credit, 2 debit, 3 neutral (expiry and in-the-money outcomes). */
export const closeTransaction = z.union([z.literal(1), z.literal(2), z.literal(3)]);

export const closeAction = z.enum(['close', 'expireWorthless', 'assigned', 'calledAway', 'exercised']);
export type CloseAction = z.infer<typeof closeAction>;

/** Trade status codes of the spec: 1 Open, 2 Closed, 3 Rolled, 4 Assigned, 5 Called Away, 6 Expired Worthless, 7 Exercised. */
export const tradeStatus = { open: 1, closed: 2, rolled: 3, assigned: 4, calledAway: 5, expiredWorthless: 6, exercised: 7 } as const;
export type TradeStatusCode = (typeof tradeStatus)[keyof typeof tradeStatus];
/** Each status code's name, as the screens and the CSV export write it. */
export const tradeStatusNames: Record<TradeStatusCode, string> = {
  1: 'Open',
  2: 'Closed',
  3: 'Rolled',
  4: 'Assigned',
  5: 'Called Away',
  6: 'Expired Worthless',
  7: 'Exercised',
};
/** Each transaction code's name (open and close: 1 credit, 2 debit; a close also 3 neutral). */
export const transactionNames: Record<number, string> = { 1: 'Credit', 2: 'Debit', 3: 'Neutral' };
export const statusByCloseAction: Record<CloseAction, TradeStatusCode> = {
  close: 2,
  assigned: 4,
  calledAway: 5,
  expireWorthless: 6,
  exercised: 7,
};

/** What the trader entered when opening a position. */
export const openTerms = z.object({
  ticker: z.string(),
  strategyUid: z.string(),
  accountUid: z.string(),
  strikePrices: z.array(z.number()),
  openDate: isoDate,
  expirationDate: isoDate,
  contractSize: z.number().int(),
  premiumAtOpen: z.number(),
  netFeeToOpen: z.number(),
  openTransaction,
  netDelta: z.number(),
  stockPriceAtOpen: z.number().nullable(),
  costBasis: z.number().nullable(),
  leapsValue: z.number().nullable(),
  notes: z.string(),
  tags: z.array(z.string()),
});
export type OpenTerms = z.infer<typeof openTerms>;

/** What the trader entered when closing (part of) a position. */
export const closeTerms = z.object({
  closeAction,
  closeDate: isoDate,
  contractsClosed: z.number().int(),
  premiumAtClose: z.number(),
  netFeeToClose: z.number(),
  closeTransaction,
});
export type CloseTerms = z.infer<typeof closeTerms>;

/**
 * How a partial close or roll divided the open premium and fee between the closed part and the
 * remainder. Decided once, at command time, and recorded: a later change of rounding never
 * rewrites history.
 */
export const allocation = z.object({
  closedPart: z.object({ premiumAtOpen: z.number(), netFeeToOpen: z.number() }),
  remainder: z
    .object({ tradeId: z.string(), contractSize: z.number().int(), premiumAtOpen: z.number(), netFeeToOpen: z.number() })
    .nullable(),
});

export const tradeOpened = z.object({
  tradeId: z.string(),
  lineageId: z.string(),
  terms: openTerms,
});

export const tradeClosed = z.object({
  tradeId: z.string(),
  close: closeTerms,
  ...allocation.shape,
});

export const tradeRolled = z.object({
  tradeId: z.string(),
  close: closeTerms,
  ...allocation.shape,
  /** The successor; its `rolledFrom` is `tradeId`. */
  newTrade: z.object({ tradeId: z.string(), terms: openTerms }),
});

export const splitLeg = z.object({
  tradeId: z.string(),
  legIndex: z.number().int(),
  /** The single-leg strategy the leg continues as (the leg's `footing`). */
  strategyUid: z.string(),
  strikePrice: z.number(),
  premiumAtOpen: z.number(),
  netFeeToOpen: z.number(),
  openTransaction,
});

export const tradeSplit = z.object({
  /** The two-leg trade that is broken; it is the ancestor (`auid`) of both legs. */
  tradeId: z.string(),
  closedLeg: splitLeg.extend({ close: closeTerms }),
  openLeg: splitLeg,
});

/** Fields a trader may change on an open trade (which ones depends on its ancestry; see the decider). */
export const editableTerms = openTerms
  .pick({
    ticker: true,
    accountUid: true,
    strikePrices: true,
    openDate: true,
    expirationDate: true,
    contractSize: true,
    premiumAtOpen: true,
    netFeeToOpen: true,
    netDelta: true,
    stockPriceAtOpen: true,
    costBasis: true,
    notes: true,
  })
  .partial();
export type EditableTerms = z.infer<typeof editableTerms>;

export const tradeEdited = z.object({ tradeId: z.string(), changes: editableTerms });
export const tradeDeleted = z.object({ tradeId: z.string() });

export const journalEventSchemas = {
  TradeOpened: tradeOpened,
  TradeClosed: tradeClosed,
  TradeRolled: tradeRolled,
  TradeSplit: tradeSplit,
  TradeEdited: tradeEdited,
  TradeDeleted: tradeDeleted,
} as const;
export type JournalEventType = keyof typeof journalEventSchemas;

/** The current schema version of each event type; bump it and add an upcaster when a shape changes. */
export const journalEventVersions: Record<JournalEventType, number> = {
  TradeOpened: 1,
  TradeClosed: 1,
  TradeRolled: 1,
  TradeSplit: 1,
  TradeEdited: 1,
  TradeDeleted: 1,
};
export const journalUpcasters: UpcasterRegistry = {};

export type JournalEvent =
  | { type: 'TradeOpened'; data: z.infer<typeof tradeOpened> }
  | { type: 'TradeClosed'; data: z.infer<typeof tradeClosed> }
  | { type: 'TradeRolled'; data: z.infer<typeof tradeRolled> }
  | { type: 'TradeSplit'; data: z.infer<typeof tradeSplit> }
  | { type: 'TradeEdited'; data: z.infer<typeof tradeEdited> }
  | { type: 'TradeDeleted'; data: z.infer<typeof tradeDeleted> };

export const journalStreamPrefix = 'trade-';
/** One user's streams share the prefix `trade-<userId>.`, so audit reads a user's history with a prefix filter. */
export const userStreamPrefix = (userId: string) => `${journalStreamPrefix}${userId}.`;
export const lineageStreamId = (userId: string, lineageId: string) => `${userStreamPrefix(userId)}${lineageId}`;
