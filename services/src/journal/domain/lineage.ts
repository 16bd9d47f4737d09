import type { JournalEvent } from '@oj/contracts/journal-events';
import type { TradeRecord } from '@oj/contracts/trade-record';
import { emptyLineage, evolveLineage, type LineageState } from '@oj/contracts/lineage-fold';

/**
 * The write side's state of one position lineage (one stream). The trade records are folded by the
 * same code the trades read model uses (contracts/src/lineage-fold.ts), so a command's answer and the
 * lists always agree; the write side adds what only decisions need: which uids left the lineage by a
 * split or a delete (to tell "split, act on the legs" from "not found").
 */
export interface LineageFacts {
  userId: string;
  lineageId: string;
  /** Revision of the last event folded in (the expected revision of the next append). */
  revision: number;
  view: LineageState;
  retired: ReadonlyMap<string, 'split' | 'deleted'>;
}

/** `active`: at least one open trade; `settled`: every trade closed, split or deleted. */
export type Lineage = { status: 'empty' } | (LineageFacts & { status: 'active' }) | (LineageFacts & { status: 'settled' });

export const emptyState: Lineage = Object.freeze({ status: 'empty' });

/** What the store knows about an event besides its data. */
export interface EventMeta {
  revision: number;
  /** Server time of the append (metadata.recordedAt). */
  recordedAt: string;
  userId: string;
}

// The read model's fold updates its state in place; a shallow copy of the containers keeps `evolve`
// pure, because the fold replaces trade records instead of mutating them.
const copyView = (v: LineageState): LineageState => ({ ...v, trades: new Map(v.trades), splits: [...v.splits] });

/** Pure: the lineage after one more event. */
export function evolve(state: Lineage, event: JournalEvent, meta: EventMeta): Lineage {
  let base: LineageFacts;
  if (state.status === 'empty') {
    if (event.type !== 'TradeOpened') throw new Error(`A lineage starts with TradeOpened, not ${event.type}`);
    base = { userId: meta.userId, lineageId: event.data.lineageId, revision: -1, view: emptyLineage(meta.userId, event.data.lineageId), retired: new Map() };
  } else {
    base = state;
  }
  const view = copyView(base.view);
  evolveLineage(view, event, { revision: meta.revision, at: meta.recordedAt });
  let retired = base.retired;
  switch (event.type) {
    case 'TradeSplit':
      retired = new Map(retired).set(event.data.tradeId, 'split');
      break;
    case 'TradeDeleted':
      retired = new Map(retired).set(event.data.tradeId, 'deleted');
      break;
    case 'TradeOpened':
    case 'TradeClosed':
    case 'TradeRolled':
    case 'TradeEdited':
      break;
    default: {
      const never: never = event;
      throw new Error(`Unknown journal event ${(never as { type: string }).type}`);
    }
  }
  const facts: LineageFacts = { userId: base.userId, lineageId: base.lineageId, revision: meta.revision, view, retired };
  const anyOpen = [...view.trades.values()].some((t) => t.status === 1);
  return anyOpen ? { status: 'active', ...facts } : { status: 'settled', ...facts };
}

export function fold(events: Iterable<{ event: JournalEvent; meta: EventMeta }>, from: Lineage = emptyState): Lineage {
  let state = from;
  for (const { event, meta } of events) state = evolve(state, event, meta);
  return state;
}

export const revisionOf = (state: Lineage): number => (state.status === 'empty' ? -1 : state.revision);

export const tradeIn = (state: Lineage, uid: string): TradeRecord | undefined => (state.status === 'empty' ? undefined : state.view.trades.get(uid));
