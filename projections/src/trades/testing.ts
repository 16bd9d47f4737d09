import { lineageStreamId, journalEventVersions, type JournalEvent, type OpenTerms } from '@oj/contracts/journal-events';
import type { StoredEvent } from '@oj/infra/eventstore/port';

/**
 * Hand-built journal events for read-model tests: a tiny log with positions and stream revisions, so
 * projections can be applied without the write side.
 */
export class JournalLog {
  readonly events: StoredEvent[] = [];
  #seq = 0n;
  #revisions = new Map<string, number>();
  #clock = Date.parse('2026-01-05T15:00:00Z');

  append(userId: string, lineageId: string, event: JournalEvent, recordedAt?: string): StoredEvent {
    const streamId = lineageStreamId(userId, lineageId);
    const revision = (this.#revisions.get(streamId) ?? -1) + 1;
    this.#revisions.set(streamId, revision);
    this.#seq += 1n;
    this.#clock += 1000;
    const at = recordedAt ?? new Date(this.#clock).toISOString();
    const stored: StoredEvent = {
      id: `e${this.#seq}`,
      type: event.type,
      schemaVersion: journalEventVersions[event.type],
      data: event.data,
      metadata: {
        userId,
        actor: { id: userId, role: 'trader' },
        correlationId: `c${this.#seq}`,
        causationId: null,
        idempotencyKey: null,
        recordedAt: at,
        businessDate: at.slice(0, 10),
      },
      streamId,
      revision,
      position: { commit: this.#seq, prepare: this.#seq },
    };
    this.events.push(stored);
    return stored;
  }
}

/**
 * A bull put spread `{id}` (400/395, 1 contract, credit 150, fee 3) opened 6 January 2026 and split on
 * 8 January: the long 395 leg `{id}1` (debit 50) closed for a credit of 70 (fee 1), the short 400 leg
 * `{id}2` (credit 200) kept open. Half the open fee to each leg.
 */
export function appendSplitSpread(log: JournalLog, user: string, id: string): void {
  log.append(user, id, { type: 'TradeOpened', data: { tradeId: id, lineageId: id, terms: terms({ ticker: 'SPY', strategyUid: 'bull-put-spread', strikePrices: [400, 395], premiumAtOpen: 150, netFeeToOpen: 3, openDate: '2026-01-06', expirationDate: '2026-01-16', netDelta: 0.15 }) } });
  log.append(user, id, {
    type: 'TradeSplit',
    data: {
      tradeId: id,
      closedLeg: {
        tradeId: `${id}1`, legIndex: 1, strategyUid: 'long-put', strikePrice: 395, premiumAtOpen: 50, netFeeToOpen: 1.5, openTransaction: 2,
        close: { closeAction: 'close', closeDate: '2026-01-08', contractsClosed: 1, premiumAtClose: 70, netFeeToClose: 1, closeTransaction: 1 },
      },
      openLeg: { tradeId: `${id}2`, legIndex: 0, strategyUid: 'naked-put', strikePrice: 400, premiumAtOpen: 200, netFeeToOpen: 1.5, openTransaction: 1 },
    },
  });
}

export function terms(over: Partial<OpenTerms> = {}): OpenTerms {
  return {
    ticker: 'AAPL',
    strategyUid: 'cash-secured-put',
    accountUid: 'acct-1',
    strikePrices: [100],
    openDate: '2026-01-05',
    expirationDate: '2026-01-16',
    contractSize: 1,
    premiumAtOpen: 200,
    netFeeToOpen: 1,
    openTransaction: 1,
    netDelta: 0.3,
    stockPriceAtOpen: 105,
    costBasis: null,
    leapsValue: null,
    notes: '',
    tags: [],
    ...over,
  };
}

/**
 * The small journal of the integration tests (figures hand-computed in the tests and docs/formulas.md):
 * A: cash-secured put, 3 contracts, partially closed (1), the remainder rolled, rolled again, expired.
 * B: bull put spread split: the long leg closed early, the short leg assigned.
 * C: covered call called away. D: a long call scalped. E: a put still open (past expiry), edited.
 * F: an open put far from expiry. G: opened and deleted. One trade of another user (X).
 */
export function smallJournal(user = 'user-1', other = 'user-2'): JournalLog {
  const log = new JournalLog();
  const csp = (o: Partial<OpenTerms>) => terms({ strategyUid: 'cash-secured-put', ...o });
  // A
  log.append(user, 'A', { type: 'TradeOpened', data: { tradeId: 'A', lineageId: 'A', terms: csp({ strikePrices: [100], contractSize: 3, premiumAtOpen: 600, netFeeToOpen: 3, openDate: '2026-01-05', expirationDate: '2026-01-16', netDelta: 0.3 }) } });
  log.append(user, 'A', {
    type: 'TradeClosed',
    data: {
      tradeId: 'A',
      close: { closeAction: 'close', closeDate: '2026-01-07', contractsClosed: 1, premiumAtClose: 50, netFeeToClose: 1, closeTransaction: 2 },
      closedPart: { premiumAtOpen: 200, netFeeToOpen: 1 },
      remainder: { tradeId: 'A2', contractSize: 2, premiumAtOpen: 400, netFeeToOpen: 2 },
    },
  });
  log.append(user, 'A', {
    type: 'TradeRolled',
    data: {
      tradeId: 'A2',
      close: { closeAction: 'close', closeDate: '2026-01-09', contractsClosed: 2, premiumAtClose: 100, netFeeToClose: 2, closeTransaction: 2 },
      closedPart: { premiumAtOpen: 400, netFeeToOpen: 2 },
      remainder: null,
      newTrade: { tradeId: 'A3', terms: csp({ strikePrices: [95], contractSize: 2, premiumAtOpen: 300, netFeeToOpen: 2, openDate: '2026-01-09', expirationDate: '2026-01-23', netDelta: 0.25 }) },
    },
  });
  log.append(user, 'A', {
    type: 'TradeRolled',
    data: {
      tradeId: 'A3',
      close: { closeAction: 'close', closeDate: '2026-01-14', contractsClosed: 2, premiumAtClose: 40, netFeeToClose: 2, closeTransaction: 2 },
      closedPart: { premiumAtOpen: 300, netFeeToOpen: 2 },
      remainder: null,
      newTrade: { tradeId: 'A4', terms: csp({ strikePrices: [90], contractSize: 2, premiumAtOpen: 250, netFeeToOpen: 2, openDate: '2026-01-14', expirationDate: '2026-01-30', netDelta: 0.2 }) },
    },
  });
  // B
  appendSplitSpread(log, user, 'B');
  // C
  log.append(user, 'C', { type: 'TradeOpened', data: { tradeId: 'C', lineageId: 'C', terms: terms({ ticker: 'MSFT', strategyUid: 'covered-call', strikePrices: [320], costBasis: 300, stockPriceAtOpen: 310, premiumAtOpen: 500, netFeeToOpen: 1, openDate: '2026-01-07', expirationDate: '2026-01-16', netDelta: 0.4 }) } });
  // D
  log.append(user, 'D', { type: 'TradeOpened', data: { tradeId: 'D', lineageId: 'D', terms: terms({ ticker: 'TSLA', strategyUid: 'long-call', strikePrices: [250], premiumAtOpen: 300, netFeeToOpen: 1, openTransaction: 2, openDate: '2026-01-08', expirationDate: '2026-02-20', netDelta: 0.5 }) } });
  log.append(user, 'D', {
    type: 'TradeClosed',
    data: { tradeId: 'D', close: { closeAction: 'close', closeDate: '2026-01-08', contractsClosed: 1, premiumAtClose: 360, netFeeToClose: 1, closeTransaction: 1 }, closedPart: { premiumAtOpen: 300, netFeeToOpen: 1 }, remainder: null },
  });
  // G: opened and deleted.
  log.append(user, 'G', { type: 'TradeOpened', data: { tradeId: 'G', lineageId: 'G', terms: terms({ ticker: 'AMD', openDate: '2026-01-08', premiumAtOpen: 80 }) } });
  log.append(user, 'G', { type: 'TradeDeleted', data: { tradeId: 'G' } });
  // E: open, edited (premium 100 -> 120, notes).
  log.append(user, 'E', { type: 'TradeOpened', data: { tradeId: 'E', lineageId: 'E', terms: terms({ ticker: 'NVDA', strikePrices: [50], premiumAtOpen: 100, netFeeToOpen: 1, openDate: '2026-01-12', expirationDate: '2026-01-16', netDelta: 0.2 }) } });
  log.append(user, 'E', { type: 'TradeEdited', data: { tradeId: 'E', changes: { premiumAtOpen: 120, notes: 'earnings' } } });
  // B2 assigned, C called away, A4 expired.
  log.append(user, 'B', {
    type: 'TradeClosed',
    data: { tradeId: 'B2', close: { closeAction: 'assigned', closeDate: '2026-01-16', contractsClosed: 1, premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 }, closedPart: { premiumAtOpen: 200, netFeeToOpen: 1.5 }, remainder: null },
  });
  log.append(user, 'C', {
    type: 'TradeClosed',
    data: { tradeId: 'C', close: { closeAction: 'calledAway', closeDate: '2026-01-16', contractsClosed: 1, premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 }, closedPart: { premiumAtOpen: 500, netFeeToOpen: 1 }, remainder: null },
  });
  // F: open, far from expiry.
  log.append(user, 'F', { type: 'TradeOpened', data: { tradeId: 'F', lineageId: 'F', terms: terms({ ticker: 'AAPL', strikePrices: [180], premiumAtOpen: 400, netFeeToOpen: 1, openDate: '2026-01-20', expirationDate: '2026-03-20', netDelta: 0.25 }) } });
  log.append(user, 'A', {
    type: 'TradeClosed',
    data: { tradeId: 'A4', close: { closeAction: 'expireWorthless', closeDate: '2026-01-30', contractsClosed: 2, premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 }, closedPart: { premiumAtOpen: 250, netFeeToOpen: 2 }, remainder: null },
  });
  // X: another user's trade on the same ticker and dates.
  log.append(other, 'X', { type: 'TradeOpened', data: { tradeId: 'X', lineageId: 'X', terms: terms({ ticker: 'AAPL', openDate: '2026-01-08', expirationDate: '2026-01-30', premiumAtOpen: 999 }) } });
  return log;
}
