import type { ReactNode } from 'react';
import type { CardColors } from '../utils/card-theme.ts';

export function CardHeader({ colors, title, subtitle }: { colors: CardColors; title: string; subtitle?: string }) {
  return (
    <div className="share-card-header">
      <div className="share-card-title">{title}</div>
      {subtitle && (
        <div className="share-card-subtitle" style={{ color: colors.muted }}>
          {subtitle}
        </div>
      )}
    </div>
  );
}

/** `compact` for longer values (dates) that would not fit the figure size. */
export function CardStat({ colors, label, value, tone, hint, compact = false }: { colors: CardColors; label: string; value: ReactNode; tone?: 'positive' | 'negative' | 'even'; hint?: ReactNode; compact?: boolean }) {
  const color = tone === 'positive' ? colors.positive : tone === 'negative' ? colors.negative : tone === 'even' ? colors.even : colors.text;
  return (
    <div className="share-stat" style={{ background: colors.surface, borderColor: colors.border }}>
      <div className="share-stat-label" style={{ color: colors.muted }}>
        {label}
      </div>
      <div className={`share-stat-value${compact ? ' is-compact' : ''}`} style={{ color }}>
        {value}
      </div>
      {hint && (
        <div className="share-stat-hint" style={{ color: colors.muted }}>
          {hint}
        </div>
      )}
    </div>
  );
}

export const toneOf = (v: number | null | undefined): 'positive' | 'negative' | 'even' | undefined =>
  v === null || v === undefined ? undefined : v > 0 ? 'positive' : v < 0 ? 'negative' : 'even';
