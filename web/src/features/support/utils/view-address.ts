import { isStorableText } from '@oj/contracts/common';
import { asOfQuery } from '@oj/contracts/audit';
import type { AsOfTarget } from '../api/audit-api.ts';

export const auditTabs = ['timeline', 'as-of', 'verify', 'export'] as const;
export type AuditTab = (typeof auditTabs)[number];

const TAB = 'tab';
/** The timeline is the tab the screen opens on: it is not written. */
const DEFAULT_TAB: AuditTab = 'timeline';

/** The tab the address names (`?tab=as-of`); the timeline for none or an unknown one. */
export function tabOf(params: URLSearchParams): AuditTab {
  return auditTabs.find((t) => t === params.get(TAB)) ?? DEFAULT_TAB;
}

/** `params` with the tab set to `tab` (none for the timeline); the address's other parameters are kept. */
export function withTab(params: URLSearchParams, tab: AuditTab): URLSearchParams {
  const next = new URLSearchParams([...params].filter(([k]) => k !== TAB));
  if (tab !== DEFAULT_TAB) next.set(TAB, tab);
  return next;
}

/*
 * The as-of parameters carry an `asof_` prefix: the timeline's own `trade`, `from` and `to` sit in the same
 * address and mean other things (the timeline's trade filter is not the trade the as-of trees focus on).
 */
const EVENT = 'asof_event';
const DATE = 'asof_date';
const FORMULAS = 'asof_formulas';
const TRADE = 'asof_trade';
/** The latest state (neither an event nor a date) is a view too: `asof=latest` says it was asked for. */
const LATEST = 'asof';
const LATEST_VALUE = 'latest';
const KEYS: readonly string[] = [EVENT, DATE, FORMULAS, TRADE, LATEST];

const readable = (raw: string | null | undefined, check: (v: string) => boolean): string | undefined => {
  const v = raw?.trim();
  // The gateway refuses a NUL in any parameter (400): it is dropped here, as anything else refused.
  return v && isStorableText(v) && check(v) ? v : undefined;
};

/**
 * The as-of view the address names (`?tab=as-of&asof_event=…&asof_formulas=1`), so a reload, Back or a
 * link pasted into a ticket ("the journal as of event N") shows the same view; null when it names none
 * (the As of tab then asks for one, and nothing is read). Each value is read with the as-of API's own query
 * contract and what it would refuse is dropped; an event and a date together are refused as a whole (the
 * API answers either), so such an address names no view.
 */
export function asOfTargetOf(params: URLSearchParams): AsOfTarget | null {
  const shape = asOfQuery.shape;
  const event = readable(params.get(EVENT), (v) => shape.event.safeParse(v).success);
  const date = readable(params.get(DATE), (v) => shape.date.safeParse(v).success);
  const trade = readable(params.get(TRADE), (v) => shape.trade.safeParse(v).success);
  const formulas = shape.formulas.safeParse(readable(params.get(FORMULAS), () => true));
  const target: AsOfTarget = {
    ...(event ? { event } : {}),
    ...(date ? { date } : {}),
    ...(formulas.success && formulas.data !== undefined ? { formulas: formulas.data } : {}),
    ...(trade ? { trade } : {}),
  };
  if (target.event && target.date) return null;
  if (Object.keys(target).length === 0 && params.get(LATEST) !== LATEST_VALUE) return null;
  return target;
}

/**
 * `params` with the as-of parameters set to `target`, in a fixed order (none for null); the address's other
 * parameters are kept.
 */
export function withAsOfTarget(params: URLSearchParams, target: AsOfTarget | null): URLSearchParams {
  const next = new URLSearchParams([...params].filter(([k]) => !KEYS.includes(k)));
  if (!target) return next;
  if (target.event) next.set(EVENT, target.event);
  if (target.date) next.set(DATE, target.date);
  if (!target.event && !target.date && target.formulas === undefined && !target.trade) next.set(LATEST, LATEST_VALUE);
  if (target.formulas !== undefined) next.set(FORMULAS, String(target.formulas));
  if (target.trade) next.set(TRADE, target.trade);
  return next;
}

/**
 * Whether two addresses hold the same parameters, whatever the order of their keys (each part of the
 * screen writes its own keys at the end); a repeated key's values keep their order (the cursors of a timeline link written before QA 74).
 */
export function sameParameters(a: URLSearchParams, b: URLSearchParams): boolean {
  const byKey = (p: URLSearchParams) => [...p].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return JSON.stringify(byKey(a)) === JSON.stringify(byKey(b));
}
