import { newYorkDate } from '@oj/contracts/business-date';

/**
 * New York's business date for a browser test file, taken once when the file loads. The files seed trades
 * on dates counted from it and compare the screens with figures computed from those dates, while the
 * server and the console take today from the clock on every request: a file that ran across New York's
 * midnight would compare yesterday's arithmetic with today's screens. So loading waits out the last
 * minutes of the day (a file takes well under `MARGIN_MS`), and says so.
 */
const MARGIN_MS = 10 * 60_000;

/** How long to wait at `now` before seeding dates: 0, or until 2 s past a New York midnight less than `MARGIN_MS` away. */
export function waitBeforeSeeding(now: Date): number {
  const today = newYorkDate(now);
  if (newYorkDate(new Date(now.getTime() + MARGIN_MS)) === today) return 0;
  // New York's midnight falls on a whole minute.
  let t = Math.ceil(now.getTime() / 60_000) * 60_000;
  while (newYorkDate(new Date(t)) === today) t += 60_000;
  return t - now.getTime() + 2_000;
}

async function clearOfMidnight(): Promise<void> {
  const wait = waitBeforeSeeding(new Date());
  if (!wait) return;
  console.warn(`[e2e] New York's midnight is ${Math.round(wait / 1000)} s away: waiting for it before this file seeds its dates.`);
  await new Promise((resolve) => setTimeout(resolve, wait));
}

await clearOfMidnight();

/** Today in New York, as this file's dates count from it. */
export const businessToday = (): string => newYorkDate(new Date());
