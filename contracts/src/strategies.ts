import { z } from 'zod';
import { closeAction } from './journal-events.ts';

/**
 * The strategy catalogue: reference data shared by the server (strike rules, breakability,
 * in-the-money outcome, collateral formulas) and the console (form layout). Strategy uids are
 * stable slugs: they are recorded in events, so they never change once published.
 */
export const strategyGroup = z.enum(['One-leg', 'Two-leg', 'Four-leg']);
export type StrategyGroup = z.infer<typeof strategyGroup>;

export const strikeRule = z.object({
  /** This leg's strike is lower than, higher than or the same as the other leg's. */
  type: z.enum(['lower', 'higher', 'same']),
  other_leg_index: z.number().int().min(0),
});

export const legConfig = z.object({
  action: z.enum(['buy', 'sell']),
  type: z.enum(['put', 'call']),
  /** The single-leg strategy this leg becomes when the trade is split. */
  footing: z.string(),
  rules: z.object({ strike: strikeRule.nullable() }),
});

/** Type codes: 1 single leg, 2 two-leg that can be broken (split), 3 two-leg that cannot, 4 four-leg. */
export const strategyTypeCode = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]);
export const BREAKABLE_STRATEGY_TYPE = 2;

export const strategy = z.object({
  uid: z.string(),
  name: z.string(),
  strategy_group: strategyGroup,
  /** 1 credit, 2 debit. */
  transaction: z.union([z.literal(1), z.literal(2)]),
  /** The in-the-money outcome the close dialog offers for this strategy. */
  extra_outcome: closeAction.exclude(['close', 'expireWorthless']),
  type: strategyTypeCode,
  /** The price field is labelled cost basis (per share) for these strategies. */
  uses_cost_basis: z.boolean(),
  legs_setup: z.object({ legs_count: z.number().int(), config: z.array(legConfig) }),
});
export type Strategy = z.infer<typeof strategy>;
export const strategyList = z.array(strategy);

type Leg = z.infer<typeof legConfig>;
const leg = (action: Leg['action'], type: Leg['type'], footing: string, rule?: [z.infer<typeof strikeRule>['type'], number]): Leg => ({
  action,
  type,
  footing,
  rules: { strike: rule ? { type: rule[0], other_leg_index: rule[1] } : null },
});

const s = (
  uid: string,
  name: string,
  transaction: 1 | 2,
  extra_outcome: Strategy['extra_outcome'],
  type: Strategy['type'],
  config: Leg[],
  uses_cost_basis = false,
): Strategy => ({
  uid,
  name,
  strategy_group: config.length === 1 ? 'One-leg' : config.length === 2 ? 'Two-leg' : 'Four-leg',
  transaction,
  extra_outcome,
  type,
  uses_cost_basis,
  legs_setup: { legs_count: config.length, config },
});

export const strategyCatalogue: readonly Strategy[] = [
  s('cash-secured-put', 'Cash-Secured Put', 1, 'assigned', 1, [leg('sell', 'put', 'Cash-Secured Put')]),
  s('covered-call', 'Covered Call', 1, 'calledAway', 1, [leg('sell', 'call', 'Covered Call')], true),
  s('naked-call', 'Naked Call', 1, 'assigned', 1, [leg('sell', 'call', 'Naked Call')]),
  s('naked-put', 'Naked Put', 1, 'assigned', 1, [leg('sell', 'put', 'Naked Put')]),
  s('long-call', 'Long Call', 2, 'exercised', 1, [leg('buy', 'call', 'Long Call')]),
  s('long-put', 'Long Put', 2, 'exercised', 1, [leg('buy', 'put', 'Long Put')]),
  s('buy-write', 'Buy-Write', 1, 'calledAway', 1, [leg('sell', 'call', 'Covered Call')], true),
  // Poor man's covered call: long deep in-the-money LEAPS call, short nearer call at a higher strike.
  s('pmcc', 'PMCC', 2, 'calledAway', 3, [leg('buy', 'call', 'Long Call'), leg('sell', 'call', 'Naked Call', ['higher', 0])], true),
  s('bull-put-spread', 'Bull Put Spread', 1, 'assigned', 2, [leg('sell', 'put', 'Naked Put'), leg('buy', 'put', 'Long Put', ['lower', 0])]),
  s('bear-call-spread', 'Bear Call Spread', 1, 'assigned', 2, [leg('sell', 'call', 'Naked Call'), leg('buy', 'call', 'Long Call', ['higher', 0])]),
  s('bull-call-spread', 'Bull Call Spread', 2, 'exercised', 2, [leg('buy', 'call', 'Long Call'), leg('sell', 'call', 'Naked Call', ['higher', 0])]),
  s('bear-put-spread', 'Bear Put Spread', 2, 'exercised', 2, [leg('buy', 'put', 'Long Put'), leg('sell', 'put', 'Naked Put', ['lower', 0])]),
  s('calendar-call-spread', 'Calendar Call Spread', 2, 'exercised', 3, [leg('sell', 'call', 'Naked Call'), leg('buy', 'call', 'Long Call', ['same', 0])]),
  s('calendar-put-spread', 'Calendar Put Spread', 2, 'exercised', 3, [leg('sell', 'put', 'Naked Put'), leg('buy', 'put', 'Long Put', ['same', 0])]),
  s('long-straddle', 'Long Straddle', 2, 'exercised', 2, [leg('buy', 'call', 'Long Call'), leg('buy', 'put', 'Long Put', ['same', 0])]),
  s('short-straddle', 'Short Straddle', 1, 'assigned', 2, [leg('sell', 'call', 'Naked Call'), leg('sell', 'put', 'Naked Put', ['same', 0])]),
  s('long-strangle', 'Long Strangle', 2, 'exercised', 2, [leg('buy', 'put', 'Long Put'), leg('buy', 'call', 'Long Call', ['higher', 0])]),
  s('short-strangle', 'Short Strangle', 1, 'assigned', 2, [leg('sell', 'put', 'Naked Put'), leg('sell', 'call', 'Naked Call', ['higher', 0])]),
  s('iron-condor', 'Iron Condor', 1, 'assigned', 4, [
    leg('buy', 'put', 'Long Put'),
    leg('sell', 'put', 'Naked Put', ['higher', 0]),
    leg('sell', 'call', 'Naked Call', ['higher', 1]),
    leg('buy', 'call', 'Long Call', ['higher', 2]),
  ]),
  s('iron-butterfly', 'Iron Butterfly', 1, 'assigned', 4, [
    leg('buy', 'put', 'Long Put'),
    leg('sell', 'put', 'Naked Put', ['higher', 0]),
    leg('sell', 'call', 'Naked Call', ['same', 1]),
    leg('buy', 'call', 'Long Call', ['higher', 2]),
  ]),
];

export const strategyByUid = (uid: string): Strategy | undefined => strategyCatalogue.find((x) => x.uid === uid);
/** The single-leg strategy a leg becomes when broken, by its footing name. */
export const strategyByName = (name: string): Strategy | undefined => strategyCatalogue.find((x) => x.name === name);
