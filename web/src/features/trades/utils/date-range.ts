import { addDays } from '@oj/contracts/business-date';

/**
 * The list pages' date-range choices (part 1 §2); Year is the default. All Dates sends no range: the only
 * way to list an open position opened more than a year ago, or a trade closed before the last year (a
 * range is at most one year).
 */
export const dateRangePresets = [
  { value: 'last10', label: 'Last 10 Days' },
  { value: 'last30', label: 'Last 30 Days' },
  { value: 'last90', label: 'Last 90 Days' },
  { value: 'ytd', label: 'YTD' },
  { value: 'year', label: 'Year' },
  { value: 'all', label: 'All Dates' },
  { value: 'custom', label: 'Custom' },
] as const;
export type DateRangePreset = (typeof dateRangePresets)[number]['value'];
export const DEFAULT_DATE_RANGE: DateRangePreset = 'year';

export interface DateRange {
  sd: string;
  ed: string;
}

/** The range a preset stands for, ending today (New York). */
export function presetRange(preset: Exclude<DateRangePreset, 'custom' | 'all'>, today: string): DateRange {
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
      // 365 days back (part 2 §2), not the same date a year ago: 366 days when the range holds a 29 February.
      return { sd: addDays(today, -365), ed: today };
  }
}
