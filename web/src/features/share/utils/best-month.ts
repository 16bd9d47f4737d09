/**
 * The month with the most premium, or null when no month earned any: an empty journal, or months of
 * losses only, has no best month (QA: the card read "Best month $0.00, Jan '26"). Ties go to the older month.
 */
export function bestMonth<M extends { premium: number }>(months: readonly M[]): M | null {
  let best: M | null = null;
  for (const m of months) if (m.premium > 0 && (!best || m.premium > best.premium)) best = m;
  return best;
}
