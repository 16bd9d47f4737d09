import { openSign } from '@oj/contracts/formulas';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { formatDate, formatStrikes, formatMoney, formatMoneyShort, formatPercent } from '@/lib/format.ts';
import { ShareModal } from './share-modal.tsx';
import { CardHeader, CardStat, toneOf } from './card-parts.tsx';

export interface TradeShareProps {
  open: boolean;
  onClose: () => void;
  trade: TradeListItem;
  /** The strategy's display name (the catalogue lives with the caller). */
  strategyName: string;
}

/** The post's text: what was captured for a closed trade; for an open one, the credit received or the debit paid. */
export function tradeShareText(t: TradeListItem, strategyName: string): string {
  const what = `${t.ticker} ${strategyName} ${formatStrikes(t.sp)}`;
  if (t.status !== 1) {
    return `${what}: ${formatMoney(t.npc)} captured${t.ror !== null ? `, ${formatPercent(t.ror)} return on risk` : ''} in ${t.do === 0 ? 'one day' : `${t.do} days`}. #options`;
  }
  return `Opened ${what} for a ${formatMoney(t.pao)} ${openSign(t.ot) < 0 ? 'debit' : 'credit'}, expiring ${formatDate(t.ed)}. #options`;
}

/** A trade's share card: what was traded, what it returned (part 2 §2 "trade share cards"). */
export function TradeShareModal({ open, onClose, trade: t, strategyName }: TradeShareProps) {
  const closed = t.status !== 1;
  // An open trade's premium is signed by its opening, as the pulse and the calendar show it: a debit paid
  // is money out (QA: a $1,577 debit read as "$1.58K Premium at open", like income).
  const debit = openSign(t.ot) < 0;
  const result = closed ? t.npc : debit ? -t.pao : t.pao;
  const text = tradeShareText(t, strategyName);
  return (
    <ShareModal open={open} onClose={onClose} title="Share Trade" shareText={text} shareError="Failed to share trade details." fileName={`trade-${t.ticker.toLowerCase()}-${t.tcd ?? t.tod}.png`}>
      {(c) => (
        <>
          <CardHeader colors={c} title={`${t.ticker} · ${strategyName}`} subtitle={`${formatStrikes(t.sp)} · ${t.cs} contract${t.cs === 1 ? '' : 's'} · exp ${formatDate(t.ed)}`} />
          {/* Part 1 §9: amounts abbreviate with K and M from 1000 (QA: "COLLATERAL $166,000…" was cut off). */}
          <div className="share-hero" style={{ color: result === null ? c.text : result > 0 ? c.positive : result < 0 ? c.negative : c.even }}>
            <span>{formatMoneyShort(result)}</span>
            {/* Named for what it is: the return on risk beside it is after fees (QA: a -$200.17 headline beside a -$202.77 return). */}
            <span style={{ color: c.muted }}>{closed ? `Premium captured, before fees · ${t.dis ?? 'Closed'}` : debit ? 'Debit paid at open' : 'Credit received at open'}</span>
          </div>
          <div className="share-grid share-grid-3">
            <CardStat colors={c} label="Opened" value={formatDate(t.tod)} compact />
            <CardStat colors={c} label={closed ? 'Closed' : 'Days open'} value={closed ? formatDate(t.tcd) : String(t.do)} compact={closed} />
            <CardStat colors={c} label="Days held" value={closed ? (t.do === 0 ? 'Scalp' : String(t.do)) : '—'} />
            <CardStat colors={c} label="Return on risk" value={formatPercent(t.ror)} tone={toneOf(t.ror)} />
            <CardStat colors={c} label="Annualised" value={formatPercent(t.aroc)} tone={toneOf(t.aroc)} />
            <CardStat colors={c} label="Collateral" value={formatMoneyShort(t.c)} />
          </div>
        </>
      )}
    </ShareModal>
  );
}
