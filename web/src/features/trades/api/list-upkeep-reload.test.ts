import { describe, expect, it } from 'vitest';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { applyChanges, belongsTo, compareFor, flattenPages, matchesFilters, type TradeChange, type TradePages } from './list-upkeep.ts';
import type { TradeListFilters, TradeListKind } from './trade-keys.ts';
import { tradeListItemFixture } from '@/test/trade-list-item.ts';

/**
 * Issue 14 (part 1 faults): after a command the patched list must show what a reload shows. The
 * "server" here is a set of trades and a reload is that set filtered, ordered and paged by the same
 * rules the read models use; every command is modelled by its effect on the set and the changes the
 * console derives from its answer (with each changed trade's earlier version, as the cache held it).
 */
const today = '2026-11-22';
const SIZE = 3;

let seq = 0;
const trade = (over: Partial<TradeListItem>): TradeListItem => {
  seq += 1;
  const uid = over.uid ?? `t${String(seq).padStart(3, '0')}`;
  return tradeListItemFixture(uid, { cs: 3, ...over });
};

type Server = Map<string, TradeListItem>;

/** What GET /trades/status/{kind} (or /trades/expiring) answers for the first `loaded` pages. */
function reload(server: Server, kind: TradeListKind, filters: TradeListFilters, loaded: number): TradePages {
  const all = [...server.values()].filter((t) => belongsTo(kind, t, today) && matchesFilters(kind, t, filters)).sort(compareFor(kind));
  const total = all.length;
  const pages = Math.ceil(total / SIZE);
  const count = Math.max(1, Math.min(loaded, pages));
  return {
    pageParams: Array.from({ length: count }, (_, i) => i + 1),
    pages: Array.from({ length: count }, (_, i) => ({ items: all.slice(i * SIZE, (i + 1) * SIZE), page: i + 1, pages, size: SIZE, total })),
  };
}

/** Eight open trades (two expiring within the window), three closed, three rolled: every list has more than one page. */
function seedServer(): Server {
  seq = 0;
  const s: Server = new Map();
  const add = (t: TradeListItem) => s.set(t.uid, t);
  for (let d = 10; d <= 17; d++) add(trade({ tod: `2026-11-${d}`, ed: d <= 11 ? '2026-11-25' : '2026-12-18', cs: 3 }));
  for (let d = 3; d <= 5; d++) add(trade({ tod: `2026-10-0${d}`, tcd: `2026-11-0${d}`, status: 2, pac: 20, ct: 2 }));
  for (let d = 6; d <= 8; d++) add(trade({ tod: `2026-10-0${d}`, tcd: `2026-11-0${d}`, status: 3, pac: 20, ct: 2 }));
  return s;
}

const up = '2026-11-22T15:00:00Z';
type Where = 'newest' | 'oldest';
/** The open trade a command acts on: the newest (on the first page) or one older than every loaded row. */
const target = (s: Server, where: Where) => {
  const open = [...s.values()].filter((t) => t.status === 1).sort(compareFor('open'));
  return (where === 'newest' ? open[0] : open[open.length - 1]) as TradeListItem;
};
const openDate = (where: Where) => (where === 'newest' ? '2026-11-20' : '2026-09-01');

type Command = (s: Server, where: Where) => TradeChange[];

/** Each command changes the server set as the fold does and returns the console's changes. */
const commands: Record<string, Command> = {
  'add open trade': (s, where) => {
    const t = trade({ tod: openDate(where), ed: where === 'newest' ? '2026-11-24' : '2026-12-18', up });
    s.set(t.uid, t);
    return [{ type: 'upsert', trade: t, before: null }];
  },
  'add closed trade': (s, where) => {
    const t = trade({ tod: openDate(where), tcd: where === 'newest' ? '2026-11-21' : '2026-09-02', status: 2, pac: 10, ct: 2, up });
    s.set(t.uid, t);
    return [{ type: 'upsert', trade: t, before: null }];
  },
  'full close': (s, where) => {
    const before = target(s, where);
    const closed = { ...before, status: 2, tcd: '2026-11-21', pac: 10, ct: 2, up };
    s.set(closed.uid, closed);
    return [{ type: 'upsert', trade: closed, before }];
  },
  'partial close': (s, where) => {
    const before = target(s, where);
    const closed = { ...before, status: 2, cs: 1, tcd: '2026-11-21', pac: 10, ct: 2, up };
    const remaining = trade({ ...before, uid: `${before.uid}-r`, cs: 2, pf: before.uid, up });
    s.set(closed.uid, closed);
    s.set(remaining.uid, remaining);
    return [
      { type: 'upsert', trade: remaining, before: null },
      { type: 'upsert', trade: closed, before },
    ];
  },
  'expire worthless': (s, where) => {
    const before = target(s, where);
    const closed = { ...before, status: 6, tcd: before.ed, pac: 0, ct: 3, up };
    s.set(closed.uid, closed);
    return [{ type: 'upsert', trade: closed, before }];
  },
  'full roll': (s, where) => {
    const before = target(s, where);
    const rolled = { ...before, status: 3, tcd: '2026-11-21', pac: 10, ct: 2, up };
    const next = trade({ ...before, uid: `${before.uid}-n`, tod: '2026-11-21', ed: '2027-01-15', rf: before.uid, up });
    s.set(rolled.uid, rolled);
    s.set(next.uid, next);
    return [
      { type: 'upsert', trade: rolled, before },
      { type: 'upsert', trade: next, before: null },
    ];
  },
  'partial roll': (s, where) => {
    const before = target(s, where);
    const rolled = { ...before, status: 3, cs: 2, tcd: '2026-11-21', pac: 10, ct: 2, up };
    const remaining = trade({ ...before, uid: `${before.uid}-r`, cs: 1, pf: before.uid, up });
    const next = trade({ ...before, uid: `${before.uid}-n`, cs: 2, tod: '2026-11-21', ed: '2027-01-15', rf: before.uid, up });
    for (const t of [rolled, remaining, next]) s.set(t.uid, t);
    return [
      { type: 'upsert', trade: rolled, before },
      { type: 'upsert', trade: remaining, before: null },
      { type: 'upsert', trade: next, before: null },
    ];
  },
  split: (s, where) => {
    const before = target(s, where);
    s.delete(before.uid);
    const closedLeg = trade({ ...before, uid: `${before.uid}-a`, auid: before.uid, status: 2, tcd: '2026-11-21', pac: 5, ct: 2, up });
    const openLeg = trade({ ...before, uid: `${before.uid}-b`, auid: before.uid, up });
    s.set(closedLeg.uid, closedLeg);
    s.set(openLeg.uid, openLeg);
    return [
      { type: 'remove', uid: before.uid, before },
      { type: 'upsert', trade: closedLeg, before: null },
      { type: 'upsert', trade: openLeg, before: null },
    ];
  },
  'edit (open date moves it to the other end)': (s, where) => {
    const before = target(s, where);
    const edited = { ...before, tod: where === 'newest' ? '2026-09-01' : '2026-11-20', up };
    s.set(edited.uid, edited);
    return [{ type: 'upsert', trade: edited, before }];
  },
  'edit (notes)': (s, where) => {
    const before = target(s, where);
    const edited = { ...before, notes: 'changed', up };
    s.set(edited.uid, edited);
    return [{ type: 'upsert', trade: edited, before }];
  },
  'edit (account leaves the filtered list)': (s, where) => {
    const before = target(s, where);
    const edited = { ...before, au: 'acc-2', up };
    s.set(edited.uid, edited);
    return [{ type: 'upsert', trade: edited, before }];
  },
  delete: (s, where) => {
    const before = target(s, where);
    s.delete(before.uid);
    return [{ type: 'remove', uid: before.uid, before }];
  },
};

const kinds: TradeListKind[] = ['open', 'expiring', 'closed', 'rolled'];
const filterSets: TradeListFilters[] = [{}, { au: 'acc-1' }];
const cases = Object.keys(commands).flatMap((command) =>
  kinds.flatMap((kind) => (['newest', 'oldest'] as const).flatMap((where) => filterSets.map((filters) => ({ command, kind, where, filters })))),
);

const uids = (d: TradePages) => flattenPages(d).map((t) => t.uid);
const total = (d: TradePages) => d.pages[0]?.total;

describe('list upkeep gives the count a reload gives (issue 14)', () => {
  it.each(cases)('$command on the $where trade, $kind list, filters $filters', ({ command, kind, where, filters }) => {
    const server = seedServer();
    const cached = reload(server, kind, filters, 1);
    const changes = (commands[command] as Command)(server, where);
    const fresh = reload(server, kind, filters, 1);

    // The patch of the list loaded before the command.
    const patched = applyChanges(cached, changes, kind, filters, today, 'pre-command');
    expect(total(patched)).toBe(total(fresh));
    // Its rows are the reload's first rows (a list with every page loaded may hold one more than a page).
    expect(uids(reload(server, kind, filters, 99)).slice(0, uids(patched).length)).toEqual(uids(patched));
    expect(patched.pages[0]?.pages).toBe(fresh.pages[0]?.pages);

    // The screen re-applies this tab's recent changes to what the cache holds: the patched list...
    const shown = applyChanges(patched, changes, kind, filters, today);
    expect(total(shown)).toBe(total(fresh));
    expect(uids(shown)).toEqual(uids(patched));

    // ...and, after the refresh, to the server's answer once the read models have caught up.
    const refreshed = applyChanges(fresh, changes, kind, filters, today);
    expect(total(refreshed)).toBe(total(fresh));
    expect(uids(refreshed)).toEqual(uids(fresh));

    // With every page loaded the patch is the reload, item for item.
    const cachedAll = reload(seedServerAgainAndRun(command, where, false), kind, filters, 99);
    const serverAfter = seedServerAgainAndRun(command, where, true);
    const changesAll = lastChanges;
    const patchedAll = applyChanges(cachedAll, changesAll, kind, filters, today, 'pre-command');
    expect(uids(patchedAll)).toEqual(uids(reload(serverAfter, kind, filters, 99)));
  });

  it('a refresh during the projector lag shows the change where the loaded rows prove the server has not caught up', () => {
    const server = seedServer();
    const stale = reload(server, 'open', {}, 1);
    const changes = (commands['add open trade'] as Command)(server, 'newest');
    const shown = applyChanges(stale, changes, 'open', {}, today);
    expect(total(shown)).toBe(total(reload(server, 'open', {}, 1)));
    expect(uids(shown)).toEqual(uids(reload(server, 'open', {}, 1)));
  });
});

let lastChanges: TradeChange[] = [];
/** The seeded server, with the command applied (after = true) or not; the command's changes are kept in `lastChanges`. */
function seedServerAgainAndRun(command: string, where: Where, after: boolean): Server {
  const s = seedServer();
  if (!after) return s;
  lastChanges = (commands[command] as Command)(s, where);
  return s;
}
