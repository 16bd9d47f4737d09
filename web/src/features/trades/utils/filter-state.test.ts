import { describe, expect, it } from 'vitest';
import { droppedRangeOf, filterStateOf, filtersOf, initialFilterState, paramsOf, withKnownChoices, withoutDateRange, type FilterState } from './filter-state.ts';

const TODAY = '2026-11-27';
const read = (search: string) => filterStateOf(new URLSearchParams(search), TODAY);
const ACCOUNT = '0b6f3c7e-6d1a-4a43-9a53-1f0c7f8d2e11';
const STRATEGY = '5d0c1e9a-2b4f-4e57-8c1d-7a6b3e2f9c40';

describe('a list page filter state in the address', () => {
  it('is empty for the default state, and reads back what it wrote', () => {
    expect(paramsOf(initialFilterState)).toEqual({});
    expect(read('')).toEqual(initialFilterState);
    const states: FilterState[] = [
      { ...initialFilterState, ticker: 'AAPL' },
      { ...initialFilterState, preset: 'last30', au: ACCOUNT },
      { ...initialFilterState, preset: 'custom', customSd: '2026-01-05', customEd: '2026-02-27', su: STRATEGY },
    ];
    for (const s of states) expect(read(new URLSearchParams(paramsOf(s)).toString())).toEqual(s);
  });

  it('reads a ticker as the API does: trimmed and upper-cased, at most six characters', () => {
    expect(read('ticker=%20spy%20').ticker).toBe('SPY');
    expect(read('ticker=TOOLONGX').ticker).toBe('');
    expect(read('ticker=').ticker).toBe('');
  });

  it('drops what the API would refuse instead of sending it', () => {
    expect(read('range=forever')).toEqual(initialFilterState);
    expect(read(`au=${ACCOUNT}%00&su=${STRATEGY}`)).toEqual({ ...initialFilterState, su: STRATEGY });
    expect(read(`au=${'a'.repeat(65)}`).au).toBe('');
    // A custom range that breaks the range rules (end before start, a future end, no end) reads as the default.
    expect(read('range=custom&sd=2026-03-01&ed=2026-02-01').preset).toBe('year');
    expect(read('range=custom&sd=2026-11-01&ed=2026-12-31').preset).toBe('year');
    expect(read('range=custom&sd=2026-11-01').preset).toBe('year');
  });

  it('asks the list for the range it names', () => {
    expect(filtersOf(read('range=last10&ticker=qqq'), TODAY)).toEqual({ sd: '2026-11-17', ed: TODAY, ticker: 'QQQ' });
    expect(filtersOf(read('range=custom&sd=2026-01-05&ed=2026-02-27'), TODAY)).toEqual({ sd: '2026-01-05', ed: '2026-02-27' });
  });

  it('All Dates asks for no range (QA: an open position opened over a year ago was in no list)', () => {
    const all = read('range=all&ticker=aapl');
    expect([all.preset, paramsOf(all)]).toEqual(['all', { range: 'all', ticker: 'AAPL' }]);
    expect(filtersOf(all, TODAY)).toEqual({ ticker: 'AAPL' });
    expect(withoutDateRange({ sd: '2025-11-27', ed: TODAY, ticker: 'AAPL', au: ACCOUNT })).toEqual({ ticker: 'AAPL', au: ACCOUNT });
  });
});

describe('an account or strategy in the address', () => {
  const state = { ...initialFilterState, au: ACCOUNT, su: STRATEGY };
  it("is dropped when it is not among the trader's, once the lists are loaded", () => {
    expect(withKnownChoices(state, [{ uid: 'another' }], [{ uid: STRATEGY }])).toEqual({ ...state, au: '' });
    expect(withKnownChoices(state, [{ uid: ACCOUNT }], [])).toEqual({ ...state, su: '' });
  });
  it('is kept, as the same state, when it is known or the lists are not loaded yet', () => {
    expect(withKnownChoices(state, [{ uid: ACCOUNT }], [{ uid: STRATEGY }])).toBe(state);
    expect(withKnownChoices(state, undefined, undefined)).toBe(state);
  });
});

describe('a date range in the address that is not used', () => {
  it('says why a range it shows as the default was dropped, and nothing for one it uses (QA 74: silently the Year list)', () => {
    const dropped = (search: string) => droppedRangeOf(new URLSearchParams(search), TODAY);
    expect(dropped('')).toBeNull();
    expect(dropped('range=last30')).toBeNull();
    expect(dropped(`range=custom&sd=${TODAY}&ed=${TODAY}`)).toBeNull();
    expect(dropped('range=custom&sd=2021-12-06&ed=2026-11-20')).toBe('Date range cannot exceed one year.');
    expect(read('range=custom&sd=2021-12-06&ed=2026-11-20').preset).toBe(initialFilterState.preset);
    expect(dropped('range=fortnight')).toBe('"fortnight" is not one of the date ranges.');
  });
});
