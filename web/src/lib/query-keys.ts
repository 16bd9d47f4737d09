/**
 * The prefix of every query whose answer is figures computed from the trader's trades outside the trade
 * lists: the dashboard's premium data, the income calendar's days, the events calendar's expirations and
 * the pulse. A trade command refreshes them all once the read models show it (the trades feature's
 * `applyTradeChanges`), so a screen that stays open while a trade is added, closed or edited from the
 * top bar shows the new figures without being left and seen again.
 */
export const journalFiguresKey = ['journal-figures'] as const;
