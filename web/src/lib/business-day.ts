/**
 * Today's business date as React state: New York's date, which turns at New York midnight whatever the
 * browser's zone. Every "today" a screen shows or checks against (a trade's days to expiration, the
 * expiring bell, a form's latest allowed date, the calendar's today) reads it through `useBusinessToday`,
 * so a console left open overnight moves to the new day at midnight instead of keeping yesterday until
 * something else re-renders it.
 *
 * One timer for the whole page, armed while something listens, set for the next New York midnight but
 * never more than an hour ahead: a timer armed before a DST change (2 a.m.) would otherwise fire an hour
 * early or late, and an hour's step re-reads the wall clock after the change. Timers do not run while a
 * laptop sleeps, and background tabs run them late, so the date is read again when the page becomes
 * visible or gets focus.
 */
import { useSyncExternalStore } from 'react';
import { BUSINESS_TIME_ZONE } from '@oj/contracts/business-date';
import { todayInNewYork } from './format.ts';

const HOUR_MS = 3_600_000;

const clock = new Intl.DateTimeFormat('en-US', { timeZone: BUSINESS_TIME_ZONE, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Milliseconds from `now` to the next New York midnight by New York's wall clock (at least 1). */
export function msUntilNewYorkMidnight(now: Date): number {
  const parts = clock.formatToParts(now);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const sinceMidnight = ((part('hour') * 60 + part('minute')) * 60 + part('second')) * 1000 + now.getMilliseconds();
  return Math.max(1, 86_400_000 - sinceMidnight);
}

const listeners = new Set<() => void>();
let today = todayInNewYork();
let timer: ReturnType<typeof setTimeout> | undefined;

/** Reads New York's date again; tells the listeners when it turned. */
function check(): void {
  const next = todayInNewYork();
  if (next !== today) {
    today = next;
    for (const listener of [...listeners]) listener();
  }
}

function arm(): void {
  clearTimeout(timer);
  // 50 ms past the computed instant: a timer may fire a hair early, and the date must have turned by then.
  timer = setTimeout(() => {
    check();
    arm();
  }, Math.min(HOUR_MS, msUntilNewYorkMidnight(new Date()) + 50));
}

const onWake = () => {
  if (typeof document === 'undefined' || document.visibilityState === 'visible') {
    check();
    arm();
  }
};

/** Calls `listener` each time New York's date turns, while subscribed. */
export function subscribeBusinessDay(listener: () => void): () => void {
  if (listeners.size === 0) {
    today = todayInNewYork();
    arm();
    if (typeof window !== 'undefined') {
      document.addEventListener('visibilitychange', onWake);
      window.addEventListener('focus', onWake);
    }
  }
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      clearTimeout(timer);
      timer = undefined;
      if (typeof window !== 'undefined') {
        document.removeEventListener('visibilitychange', onWake);
        window.removeEventListener('focus', onWake);
      }
    }
  };
}

/** Today's business date ('YYYY-MM-DD'); the component renders again when it turns. */
export function useBusinessToday(): string {
  // A string snapshot: the same date is the same value, so React renders again only when it turned.
  return useSyncExternalStore(subscribeBusinessDay, todayInNewYork, todayInNewYork);
}
