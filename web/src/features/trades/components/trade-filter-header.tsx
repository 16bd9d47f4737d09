import { useId, useState, type FormEvent } from 'react';
import type { Account } from '@oj/contracts/accounts';
import type { Strategy } from '@oj/contracts/strategies';
import { dateRangeIssues } from '@oj/contracts/trade-views';
import { Button } from '@/components/ui/button.tsx';
import { SelectInput, TextInput } from '@/components/ui/form-field.tsx';
import { useBusinessToday } from '@/lib/business-day.ts';
import { dateRangePresets, type DateRangePreset } from '../utils/date-range.ts';
import { initialFilterState, type FilterState } from '../utils/filter-state.ts';
import { FilterIcon, RefreshIcon, SearchIcon } from './icons.tsx';

interface Props {
  value: FilterState;
  onChange: (next: FilterState) => void;
  onRefresh: () => void;
  refreshing: boolean;
  accounts: readonly Account[];
  strategies: readonly Strategy[];
}

/** Ticker search (upper case), refresh, and the filter panel: date range, account, strategy, Reset. */
export function TradeFilterHeader({ value, onChange, onRefresh, refreshing, accounts, strategies }: Props) {
  const [tickerInput, setTickerInput] = useState(value.ticker);
  const [open, setOpen] = useState(false);
  const [preset, setPreset] = useState<DateRangePreset>(value.preset);
  const [sd, setSd] = useState(value.customSd);
  const [ed, setEd] = useState(value.customEd);
  const [touched, setTouched] = useState({ sd: false, ed: false });
  // The applied state can change under the fields (Back, Forward, a link). A field follows its own applied
  // value when that value changes, and only then: a custom range being typed survives choosing an account.
  const [previous, setPrevious] = useState(value);
  if (previous !== value) {
    setPrevious(value);
    if (value.ticker !== previous.ticker) setTickerInput(value.ticker);
    if (value.preset !== previous.preset || value.customSd !== previous.customSd || value.customEd !== previous.customEd) {
      setPreset(value.preset);
      setSd(value.customSd);
      setEd(value.customEd);
      setTouched({ sd: false, ed: false });
    }
  }
  const panelId = useId();
  const today = useBusinessToday();
  const customErrors = dateRangeIssues(sd, ed, today);
  // Apply is enabled once both dates are filled; the range rules are checked when it is pressed.
  const customFilled = Boolean(sd && ed);
  const applyCustom = () => {
    setTouched({ sd: true, ed: true });
    if (customErrors.sd || customErrors.ed) return;
    onChange({ ...value, preset: 'custom', customSd: sd, customEd: ed });
  };
  // Refresh reads what the box says now: a search the user cleared (or changed) is not kept.
  const refresh = () => {
    const ticker = tickerInput.trim();
    if (ticker !== value.ticker) onChange({ ...value, ticker });
    else onRefresh();
  };

  const search = (e: FormEvent) => {
    e.preventDefault();
    onChange({ ...value, ticker: tickerInput.trim() });
  };
  const choosePreset = (next: DateRangePreset) => {
    setPreset(next);
    if (next !== 'custom') onChange({ ...value, preset: next });
  };
  const reset = () => {
    setTickerInput('');
    setPreset(initialFilterState.preset);
    setSd('');
    setEd('');
    setTouched({ sd: false, ed: false });
    onChange(initialFilterState);
  };

  return (
    <div className="trade-filters">
      <div className="trade-filters-bar">
        <form className="trade-search" role="search" onSubmit={search}>
          <label className="visually-hidden" htmlFor={`${panelId}-ticker`}>
            Search by ticker
          </label>
          <TextInput
            id={`${panelId}-ticker`}
            value={tickerInput}
            placeholder="Search ticker"
            autoComplete="off"
            spellCheck={false}
            maxLength={6}
            onChange={(e) => setTickerInput(e.target.value.toUpperCase())}
          />
          <Button type="submit" variant="secondary" icon={<SearchIcon />} aria-label="Search" />
        </form>
        <Button variant="secondary" icon={<RefreshIcon />} aria-label="Refresh" onClick={refresh} loading={refreshing} />
        <Button
          variant={open ? 'primary' : 'secondary'}
          icon={<FilterIcon />}
          aria-expanded={open}
          aria-controls={open ? panelId : undefined}
          onClick={() => setOpen((o) => !o)}
        >
          Filters
        </Button>
      </div>
      {open && (
        <div className="trade-filters-panel" id={panelId}>
          <div className="trade-filter-field">
            <label htmlFor={`${panelId}-range`}>Date range</label>
            <SelectInput id={`${panelId}-range`} value={preset} onChange={(e) => choosePreset(e.target.value as DateRangePreset)}>
              {dateRangePresets.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </SelectInput>
          </div>
          {preset === 'custom' && (
            // A form of its own, so Enter in a date applies the range as Apply does (QA, keyboard pass).
            <form
              className="trade-filter-custom"
              aria-label="Custom date range"
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                if (customFilled) applyCustom();
              }}
            >
              <div className="trade-filter-field">
                <label htmlFor={`${panelId}-sd`}>Start Date</label>
                <TextInput
                  id={`${panelId}-sd`}
                  type="date"
                  value={sd}
                  max={today}
                  aria-invalid={touched.sd && Boolean(customErrors.sd)}
                  onChange={(e) => setSd(e.target.value)}
                />
                {touched.sd && customErrors.sd && (
                  <div className="field-error" role="alert">
                    {customErrors.sd}
                  </div>
                )}
              </div>
              <div className="trade-filter-field">
                <label htmlFor={`${panelId}-ed`}>End Date</label>
                <TextInput
                  id={`${panelId}-ed`}
                  type="date"
                  value={ed}
                  max={today}
                  aria-invalid={touched.ed && Boolean(customErrors.ed)}
                  onChange={(e) => setEd(e.target.value)}
                />
                {touched.ed && customErrors.ed && (
                  <div className="field-error" role="alert">
                    {customErrors.ed}
                  </div>
                )}
              </div>
              <div className="trade-filter-action">
                <Button type="submit" disabled={!customFilled}>
                  Apply
                </Button>
              </div>
            </form>
          )}
          <div className="trade-filter-field">
            <label htmlFor={`${panelId}-account`}>Account</label>
            <SelectInput id={`${panelId}-account`} value={value.au} onChange={(e) => onChange({ ...value, au: e.target.value })}>
              <option value="">All accounts</option>
              {accounts.map((a) => (
                <option key={a.uid} value={a.uid}>
                  {a.name}
                </option>
              ))}
            </SelectInput>
          </div>
          <div className="trade-filter-field">
            <label htmlFor={`${panelId}-strategy`}>Strategy</label>
            <SelectInput id={`${panelId}-strategy`} value={value.su} onChange={(e) => onChange({ ...value, su: e.target.value })}>
              <option value="">All strategies</option>
              {strategies.map((s) => (
                <option key={s.uid} value={s.uid}>
                  {s.name}
                </option>
              ))}
            </SelectInput>
          </div>
          <div className="trade-filter-action">
            <Button variant="ghost" onClick={reset}>
              Reset
            </Button>
          </div>
        </div>
      )}
    </div>
  );
}
