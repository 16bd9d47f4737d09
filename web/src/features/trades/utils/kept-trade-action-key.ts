/**
 * The session-drafts key (lib/session-drafts.ts) of the one-trade form (close, roll, split, edit) that was
 * open when the session ran out. Its own module, without the contract's schema, so the app shell can ask
 * whether there is one without loading the code that reopens it.
 */
export const KEPT_TRADE_ACTION = 'trade-action';
