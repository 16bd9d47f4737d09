import { describe, expect, it } from 'vitest';
import { dateTime, duration, figureSentence, idleBuild, laneState, position } from './format.ts';

describe('operations formatting', () => {
  it("says a lane's state: its lag, caught up, or, with nothing behind, that nobody works it or it is stuck (QA 75: 'caught up' beside 'No projector works this lane')", () => {
    expect(laneState({ behind: 0, capped: false, seconds: 0, errorAttempts: null })).toEqual({ text: 'caught up', ok: true });
    expect(laneState({ behind: 1234, capped: false, seconds: 2.25, errorAttempts: null })).toEqual({ text: '1,234 behind · 2.3s', ok: false });
    expect(laneState({ behind: 0, capped: true, seconds: 0, errorAttempts: null })).toEqual({ text: '0+ behind · 0.0s', ok: false });
    expect(laneState({ behind: null, capped: false, seconds: 0, errorAttempts: null })).toEqual({ text: 'lag unknown', ok: false });
    expect(laneState({ behind: 0, capped: false, seconds: 0, errorAttempts: 0 })).toEqual({ text: 'not worked', ok: false });
    expect(laneState({ behind: 0, capped: false, seconds: 0, errorAttempts: 7 })).toEqual({ text: 'stuck', ok: false });
  });

  it('writes an action\'s time in UTC and says so, whatever the browser\'s zone (QA: local time, no zone)', () => {
    expect(dateTime('2026-12-05T10:51:49.178Z')).toBe('Dec 5, 10:51:49 UTC');
    expect(dateTime('2026-07-01T00:05:09Z')).toBe('Jul 1, 00:05:09 UTC');
  });

  it('says a figure delta the way an operator reads it', () => {
    expect(figureSentence({ table: 'trades', column: 'ror', rowsChanged: 312, users: 41, largestDelta: 3.2, samples: [] })).toBe('ROR changed for 312 trades of 41 users, largest +3.2');
    expect(figureSentence({ table: 'trades', column: 'pao', rowsChanged: 1, users: 1, largestDelta: -5, samples: [] })).toBe('PAO changed for 1 trade of 1 user, largest −5');
    expect(figureSentence({ table: 'daily_premium', column: 'tickers', rowsChanged: 2, users: null, largestDelta: null, samples: [] })).toBe('tickers changed for 2 rows of daily_premium');
    expect(figureSentence({ table: 'stream_figures', column: 'net_premium', rowsChanged: 1200, users: 3, largestDelta: 0.125, samples: [] })).toBe(
      'net premium changed for 1,200 rows of stream_figures of 3 users, largest +0.125',
    );
  });

  it('shows log positions without padding and durations in words', () => {
    expect(position('00000000000000052685-00000000000000000074')).toBe('52685:74');
    expect(position('start')).toBe('start');
    expect(duration(null)).toBe('—');
    expect(duration(0.2)).toBe('<1s');
    expect(duration(42.1)).toBe('43s');
    expect(duration(125)).toBe('2m 05s');
    expect(duration(3 * 3600 + 60)).toBe('3h 01m');
  });

  it('tells a build that stopped midway from one built and not switched (QA: a built version read "not running, resume it")', () => {
    const record = (r: Partial<Parameters<typeof idleBuild>[1][number]>) => ({
      version: 7, checkpoint: '1-1', eventsDone: 100, eventsTotal: 100, startedAt: '2026-12-05T10:00:00Z', updatedAt: '2026-12-05T10:01:00Z', builtAt: null, finishedAt: null, ...r,
    });
    expect(idleBuild(7, [record({ eventsDone: 40 })])).toMatchObject({ kind: 'stopped', short: true });
    expect(idleBuild(7, [record({})])).toMatchObject({ kind: 'stopped', short: false });
    expect(idleBuild(7, [record({ builtAt: '2026-12-05T10:01:00Z' })])).toMatchObject({ kind: 'built', record: { version: 7 } });
    // Only the building version's own record counts; none building, nothing to say.
    expect(idleBuild(8, [record({ builtAt: '2026-12-05T10:01:00Z' })])).toBeNull();
    expect(idleBuild(undefined, [record({})])).toBeNull();
  });
});
