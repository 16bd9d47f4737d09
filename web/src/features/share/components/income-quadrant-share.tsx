import { formatMoney, formatPercent } from '@/lib/format.ts';
import { ShareModal } from './share-modal.tsx';
import { CardHeader, CardStat, toneOf } from './card-parts.tsx';

export interface QuadrantPeriod {
  /** 'Today', 'This Week', 'This Month', 'This Year'. */
  label: string;
  value: number;
  previous: number;
  /** Percent change against the previous period (part 2 §9), null when only the previous is 0. */
  change: number | null;
}

export interface IncomeQuadrantShareProps {
  open: boolean;
  onClose: () => void;
  periods: QuadrantPeriod[];
  /** 'as of Nov 24, 2026'. */
  asOf?: string;
}

/** Share card of the dashboard's Income Quadrant (part 2 §2). */
export function IncomeQuadrantShareModal({ open, onClose, periods, asOf }: IncomeQuadrantShareProps) {
  const text = `My option premium income: ${periods.map((p) => `${p.label} ${formatMoney(p.value)}`).join(', ')}. #options #optionsincome`;
  return (
    <ShareModal open={open} onClose={onClose} title="Share Income Quadrant" shareText={text} shareError="Failed to share period income." fileName="income-quadrant.png">
      {(c) => (
        <>
          <CardHeader colors={c} title="Premium Income" subtitle={asOf} />
          <div className="share-grid share-grid-2">
            {periods.map((p) => (
              <CardStat
                key={p.label}
                colors={c}
                label={p.label}
                value={formatMoney(p.value)}
                tone={toneOf(p.value)}
                hint={
                  <>
                    <span style={{ color: p.change === null ? c.muted : p.change >= 0 ? c.positive : c.negative }}>{p.change === null ? '—' : `${p.change >= 0 ? '▲' : '▼'} ${formatPercent(Math.abs(p.change))}`}</span> vs {formatMoney(p.previous)}
                  </>
                }
              />
            ))}
          </div>
        </>
      )}
    </ShareModal>
  );
}
