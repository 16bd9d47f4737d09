// @vitest-environment jsdom
import '@/test/dom.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import { QueryClient } from '@tanstack/react-query';
import { refetchOnNewBusinessDay } from '@/app/provider.tsx';
import { msUntilNewYorkMidnight, useBusinessToday } from './business-day.ts';

afterEach(() => vi.useRealTimers());

function Today() {
  return <output>{useBusinessToday()}</output>;
}

const shown = () => screen.getByRole('status').textContent;

/** Moves the clock on by `ms`, running the timers due on the way, as the browser would. */
const pass = (ms: number) => act(() => void vi.advanceTimersByTime(ms));

describe("the business day's clock", () => {
  it('counts to the next midnight by New York’s wall clock, whatever the zone of the browser', () => {
    expect(msUntilNewYorkMidnight(new Date('2026-12-07T04:59:30.250Z'))).toBe(29_750); // 23:59:30.250 EST
    expect(msUntilNewYorkMidnight(new Date('2026-12-07T05:00:00.000Z'))).toBe(86_400_000); // midnight itself
    expect(msUntilNewYorkMidnight(new Date('2026-07-01T03:00:00Z'))).toBe(3_600_000); // 23:00 EDT
  });

  it('turns an open page to the new day at New York midnight, not before', () => {
    vi.useFakeTimers({ now: new Date('2026-12-07T04:59:00Z') }); // 23:59 on 6 December in New York
    render(<Today />);
    expect(shown()).toBe('2026-12-06');
    pass(59_000);
    expect(shown()).toBe('2026-12-06');
    pass(1_100);
    expect(shown()).toBe('2026-12-07');
    // and again the next night, from the timer it armed itself
    pass(86_400_000);
    expect(shown()).toBe('2026-12-08');
  });

  it('turns on time across the spring DST change, when a day has 23 hours', () => {
    // 00:30 EST on 14 March 2027; clocks go 02:00 to 03:00 EDT, so the next midnight is 22.5 hours away,
    // not the 23.5 the wall clock said before the change (04:00 UTC on the 15th).
    vi.useFakeTimers({ now: new Date('2027-03-14T05:30:00Z') });
    render(<Today />);
    pass(new Date('2027-03-15T03:59:58Z').getTime() - Date.now());
    expect(shown()).toBe('2027-03-14');
    pass(2_100);
    expect(shown()).toBe('2027-03-15');
  });

  it('catches up when the page comes back after the machine slept through midnight', () => {
    vi.useFakeTimers({ now: new Date('2026-12-07T02:00:00Z') }); // 21:00 in New York
    render(<Today />);
    expect(shown()).toBe('2026-12-06');
    // A sleeping laptop runs no timer: the clock jumps without them.
    vi.setSystemTime(new Date('2026-12-07T13:00:00Z'));
    expect(shown()).toBe('2026-12-06');
    act(() => void document.dispatchEvent(new Event('visibilitychange')));
    expect(shown()).toBe('2026-12-07');
  });

  it('marks every query out of date once the day turns, and not before (the active ones refetch)', async () => {
    vi.useFakeTimers({ now: new Date('2026-12-07T04:59:50Z') });
    const client = new QueryClient();
    await client.prefetchQuery({ queryKey: ['expiring'], queryFn: async () => 1, staleTime: Infinity });
    const stop = refetchOnNewBusinessDay(client);
    const invalidated = () => client.getQueryState(['expiring'])?.isInvalidated;
    await act(async () => void vi.advanceTimersByTime(9_000));
    expect(invalidated()).toBe(false);
    await act(async () => void vi.advanceTimersByTime(1_100));
    expect(invalidated()).toBe(true);
    stop();
  });
});
