import { addDays, isWeekend } from '@oj/contracts/business-date';
import type { CloseTerms, JournalEvent, OpenTerms } from '@oj/contracts/journal-events';
import { journalEventVersions, lineageStreamId } from '@oj/contracts/journal-events';
import type { NewEvent } from '@oj/infra/eventstore/port';
import { mulberry32 } from '@oj/infra/prng';

/**
 * A deterministic synthetic trade journal for benchmarks: lineages of the shapes traders produce
 * (plain closes, partial closes, rolls and rolls of rolls, splits, edits and deletes, trades left open),
 * interleaved in the log as many traders' activity would be, over two years of weekdays, dates advancing
 * with the log. One "heavy"
 * user owns a fixed share of the lineages, so list queries can be measured for a user with 100,000 trades.
 */
export interface GeneratorOptions {
  totalEvents: number;
  users: number;
  /** Lineages of the heavy user (about as many trades, a few more from partial closes and rolls). */
  heavyUserLineages: number;
  heavyUserId?: string;
  /** The last business date of the journal. */
  today?: string;
  seed?: number;
}

export interface GeneratedEvent {
  streamId: string;
  /** 0-based revision in its stream. */
  revision: number;
  event: NewEvent<JournalEvent['data']>;
}

const TICKERS = ['AAPL', 'MSFT', 'NVDA', 'TSLA', 'AMD', 'SPY', 'QQQ', 'IWM', 'AMZN', 'META', 'GOOG', 'NFLX', 'PLTR', 'SOFI', 'F', 'BAC', 'KO', 'XOM', 'INTC', 'DIS'];
const SINGLE = ['cash-secured-put', 'covered-call', 'naked-put', 'naked-call', 'long-call', 'long-put'];

export const HEAVY_USER = 'bench-heavy-user';

export function* generateJournal(o: GeneratorOptions): Generator<GeneratedEvent> {
  const rand = mulberry32(o.seed ?? 42);
  const heavy = o.heavyUserId ?? HEAVY_USER;
  const today = o.today ?? '2026-11-20';
  const weekdays: string[] = [];
  for (let d = addDays(today, -730); d <= today; d = addDays(d, 1)) if (!isWeekend(d)) weekdays.push(d);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const int = (a: number, b: number) => a + Math.floor(rand() * (b - a + 1));
  const money = (a: number, b: number) => Math.round((a + rand() * (b - a)) * 100) / 100;
  const lineageCountEstimate = o.totalEvents / 2.3;
  const heavyShare = Math.min(1, o.heavyUserLineages / lineageCountEstimate);
  let lineageSeq = 0;
  let eventSeq = 0;
  let clock = Date.parse(`${weekdays[0]}T15:00:00Z`);

  /** A lineage is a script: a list of thunks producing its events in order. */
  type Script = { userId: string; lid: string; revision: number; steps: Array<() => JournalEvent> };

  const index = new Map(weekdays.map((d, i) => [d, i]));
  const dateIdx = (d: string) => index.get(d) ?? weekdays.length - 1;
  const laterWeekday = (d: string, maxDays: number, notAfter: string): string => {
    const i = dateIdx(d);
    const j = Math.min(i + int(0, maxDays), weekdays.length - 1);
    const c = weekdays[j]!;
    return c > notAfter ? notAfter : c;
  };

  function openTerms(openDate: string, strategyUid: string, contractSize: number): OpenTerms {
    const strike = money(10, 500);
    const debit = strategyUid.startsWith('long');
    const ed = addDays(openDate, int(2, 45));
    return {
      ticker: pick(TICKERS),
      strategyUid,
      accountUid: `acct-${int(1, 3)}`,
      strikePrices: strategyUid === 'bull-put-spread' ? [strike, Math.round((strike - 5) * 100) / 100] : [strike],
      openDate,
      expirationDate: isWeekend(ed) ? addDays(ed, isWeekend(addDays(ed, 1)) ? 2 : 1) : ed,
      contractSize,
      premiumAtOpen: money(20, 800) * contractSize,
      netFeeToOpen: Math.round(0.68 * contractSize * 100) / 100,
      openTransaction: debit ? 2 : 1,
      netDelta: money(0.05, 0.6),
      stockPriceAtOpen: money(10, 500),
      costBasis: strategyUid === 'covered-call' ? money(10, 500) : null,
      leapsValue: null,
      notes: '',
      tags: [],
    };
  }

  function closeTerms(t: OpenTerms, contracts: number): CloseTerms {
    const r = rand();
    const closeDate = laterWeekday(t.openDate, 20, t.expirationDate < today ? t.expirationDate : today);
    if (r < 0.15) return { closeAction: 'expireWorthless', closeDate: t.expirationDate <= today ? t.expirationDate : closeDate, contractsClosed: contracts, premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 };
    if (r < 0.2) return { closeAction: t.openTransaction === 2 ? 'exercised' : t.strategyUid === 'covered-call' ? 'calledAway' : 'assigned', closeDate, contractsClosed: contracts, premiumAtClose: 0, netFeeToClose: 0, closeTransaction: 3 };
    return { closeAction: 'close', closeDate, contractsClosed: contracts, premiumAtClose: money(5, 400) * contracts, netFeeToClose: Math.round(0.68 * contracts * 100) / 100, closeTransaction: t.openTransaction === 1 ? 2 : 1 };
  }

  function newScript(): Script {
    const userId = rand() < heavyShare ? heavy : `bench-user-${int(1, o.users)}`;
    const lid = `L${(++lineageSeq).toString(36).padStart(8, '0')}`;
    // A journal is kept day by day: open dates advance with the log, with some back-dating (up to two
    // weeks), so a batch of the log touches a few weeks of dates, as a real rebuild's batches do.
    const progress = Math.min(1, lineageSeq / lineageCountEstimate);
    const dayIndex = Math.max(0, Math.min(weekdays.length - 2, Math.round(progress * (weekdays.length - 2)) - int(0, 10)));
    const openDate = weekdays[dayIndex]!;
    const r = rand();
    const steps: Script['steps'] = [];
    const share = (pao: number, part: number, whole: number) => Math.round(((pao * part) / whole) * 100) / 100;
    if (r < 0.08) {
      // Split of a two-leg trade; the open leg closes later.
      const t = openTerms(openDate, 'bull-put-spread', 1);
      steps.push(() => ({ type: 'TradeOpened', data: { tradeId: lid, lineageId: lid, terms: t } }));
      const c = closeTerms(t, 1);
      const half = Math.round((t.netFeeToOpen / 2) * 100) / 100;
      steps.push(() => ({
        type: 'TradeSplit',
        data: {
          tradeId: lid,
          closedLeg: { tradeId: `${lid}-l1`, legIndex: 1, strategyUid: 'long-put', strikePrice: t.strikePrices[1]!, premiumAtOpen: share(t.premiumAtOpen, 1, 3), netFeeToOpen: half, openTransaction: 2, close: { ...c, closeAction: 'close', closeTransaction: 1, premiumAtClose: money(1, 100) } },
          openLeg: { tradeId: `${lid}-l0`, legIndex: 0, strategyUid: 'naked-put', strikePrice: t.strikePrices[0]!, premiumAtOpen: share(t.premiumAtOpen, 4, 3), netFeeToOpen: half, openTransaction: 1 },
        },
      }));
      if (rand() < 0.7) steps.push(() => ({ type: 'TradeClosed', data: { tradeId: `${lid}-l0`, close: closeTerms({ ...t, openDate: c.closeDate }, 1), closedPart: { premiumAtOpen: share(t.premiumAtOpen, 4, 3), netFeeToOpen: half }, remainder: null } }));
      return { userId, lid, revision: -1, steps };
    }
    const strategy = pick(SINGLE);
    const cs = r < 0.3 ? int(2, 5) : 1;
    const t = openTerms(openDate, strategy, cs);
    steps.push(() => ({ type: 'TradeOpened', data: { tradeId: lid, lineageId: lid, terms: t } }));
    const kind = rand();
    if (kind < 0.1) return { userId, lid, revision: -1, steps };
    if (kind < 0.15) {
      steps.push(() => ({ type: 'TradeEdited', data: { tradeId: lid, changes: { notes: 'edited', premiumAtOpen: t.premiumAtOpen + 1 } } }));
      if (rand() < 0.5) steps.push(() => ({ type: 'TradeDeleted', data: { tradeId: lid } }));
      return { userId, lid, revision: -1, steps };
    }
    if (cs > 1 && kind < 0.35) {
      const c = closeTerms(t, 1);
      steps.push(() => ({
        type: 'TradeClosed',
        data: { tradeId: lid, close: { ...c, closeAction: 'close', closeTransaction: t.openTransaction === 1 ? 2 : 1, premiumAtClose: money(5, 300) }, closedPart: { premiumAtOpen: share(t.premiumAtOpen, 1, cs), netFeeToOpen: share(t.netFeeToOpen, 1, cs) }, remainder: { tradeId: `${lid}-r`, contractSize: cs - 1, premiumAtOpen: share(t.premiumAtOpen, cs - 1, cs), netFeeToOpen: share(t.netFeeToOpen, cs - 1, cs) } },
      }));
      steps.push(() => ({ type: 'TradeClosed', data: { tradeId: `${lid}-r`, close: closeTerms({ ...t, openDate: c.closeDate }, cs - 1), closedPart: { premiumAtOpen: share(t.premiumAtOpen, cs - 1, cs), netFeeToOpen: share(t.netFeeToOpen, cs - 1, cs) }, remainder: null } }));
      return { userId, lid, revision: -1, steps };
    }
    if (kind < 0.55) {
      // A roll, sometimes a roll of a roll, then a close.
      let prev = { uid: lid, terms: t };
      const rolls = rand() < 0.3 ? 2 : 1;
      for (let i = 0; i < rolls; i++) {
        const from = prev;
        const uid = `${lid}-r${i}`;
        const closeDate = laterWeekday(from.terms.openDate, 10, from.terms.expirationDate < today ? from.terms.expirationDate : today);
        const next = { ...openTerms(closeDate, strategy, from.terms.contractSize), ticker: from.terms.ticker };
        steps.push(() => ({
          type: 'TradeRolled',
          data: {
            tradeId: from.uid,
            close: { closeAction: 'close', closeDate, contractsClosed: from.terms.contractSize, premiumAtClose: money(5, 300), netFeeToClose: from.terms.netFeeToOpen, closeTransaction: from.terms.openTransaction === 1 ? 2 : 1 },
            closedPart: { premiumAtOpen: from.terms.premiumAtOpen, netFeeToOpen: from.terms.netFeeToOpen },
            remainder: null,
            newTrade: { tradeId: uid, terms: next },
          },
        }));
        prev = { uid, terms: next };
      }
      const last = prev;
      steps.push(() => ({ type: 'TradeClosed', data: { tradeId: last.uid, close: closeTerms(last.terms, last.terms.contractSize), closedPart: { premiumAtOpen: last.terms.premiumAtOpen, netFeeToOpen: last.terms.netFeeToOpen }, remainder: null } }));
      return { userId, lid, revision: -1, steps };
    }
    steps.push(() => ({ type: 'TradeClosed', data: { tradeId: lid, close: closeTerms(t, cs), closedPart: { premiumAtOpen: t.premiumAtOpen, netFeeToOpen: t.netFeeToOpen }, remainder: null } }));
    return { userId, lid, revision: -1, steps };
  }

  const WINDOW = 2000;
  const active: Script[] = [];
  while (eventSeq < o.totalEvents) {
    while (active.length < WINDOW) active.push(newScript());
    const i = Math.floor(rand() * active.length);
    const s = active[i]!;
    const step = s.steps.shift()!;
    const event = step();
    s.revision += 1;
    eventSeq += 1;
    clock += 37;
    const recordedAt = new Date(clock).toISOString();
    yield {
      streamId: lineageStreamId(s.userId, s.lid),
      revision: s.revision,
      event: {
        id: `00000000-0000-7000-8000-${eventSeq.toString(16).padStart(12, '0')}`,
        type: event.type,
        schemaVersion: journalEventVersions[event.type],
        data: event.data,
        metadata: {
          userId: s.userId,
          actor: { id: s.userId, role: 'trader' },
          correlationId: `bench-${eventSeq}`,
          causationId: null,
          idempotencyKey: null,
          recordedAt,
          businessDate: recordedAt.slice(0, 10),
        },
      },
    };
    if (!s.steps.length) active.splice(i, 1);
  }
}
