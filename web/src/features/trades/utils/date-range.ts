import { addDays, minusYears } from '@oj/contracts/business-date';
import { DATE_FILTER_MESSAGES, dateRangeIssues } from '@oj/contracts/trade-views';

/** The list pages' date-range choices (part 1 §2); Year is the default. */
export const dateRangePresets = [
  { value: 'last10', label: 'Last 10 Days' },
  { value: 'last30', label: 'Last 30 Days' },
  { value: 'last90', label: 'Last 90 Days' },
  { value: 'ytd', label: 'YTD' },
  { value: 'year', label: 'Year' },
  { value: 'custom', label: 'Custom' },
] as const;
export type DateRangePreset = (typeof dateRangePresets)[number]['value'];
export const DEFAULT_DATE_RANGE: DateRangePreset = 'year';

export interface DateRange {
  sd: string;
  ed: string;
}

/** The range a preset stands for, ending today (New York). */
export function presetRange(preset: Exclude<DateRangePreset, 'custom'>, today: string): DateRange {
  switch (preset) {
    case 'last10':
      return { sd: addDays(today, -10), ed: today };
    case 'last30':
      return { sd: addDays(today, -30), ed: today };
    case 'last90':
      return { sd: addDays(today, -90), ed: today };
    case 'ytd':
      return { sd: `${today.slice(0, 4)}-01-01`, ed: today };
    case 'year':
      return { sd: minusYears(today, 1), ed: today };
  }
}

/** The range rules' messages (the server refuses a status list's range with the same ones). */
export const dateFilterMessages = {
  startRequired: DATE_FILTER_MESSAGES.startRequired,
  startFuture: DATE_FILTER_MESSAGES.startInFuture,
  endRequired: DATE_FILTER_MESSAGES.endRequired,
  endFuture: DATE_FILTER_MESSAGES.endInFuture,
  endBeforeStart: DATE_FILTER_MESSAGES.endBeforeStart,
  tooLong: DATE_FILTER_MESSAGES.rangeTooLong,
} as const;

/** Part 1 §5 "Date filter": per-field messages for a custom range; empty when it may be applied. */
export const validateCustomRange = (sd: string, ed: string, today: string): { sd?: string; ed?: string } => dateRangeIssues(sd, ed, today);
