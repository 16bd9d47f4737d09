import { useState, type ReactNode } from 'react';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { daysBetween } from '@oj/contracts/business-date';
import { strategyByUid } from '@oj/contracts/strategies';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { useTabs, type TabItem } from '@/components/ui/tabs.tsx';
import { formatDate, formatDateTime, formatMoney, formatPercent } from '@/lib/format.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { useTradeAccounts } from '../api/get-trade-accounts.ts';
import { expiryDisplay, holdingPeriod } from '../utils/expiry.ts';
import { closeActionLabel, closedStatusLabel, formatStrikes, openActionLabel, statusLabel, transactionLabel, trimNumber } from '../utils/trade-labels.ts';
import { Summary } from './form-controls.tsx';
import type { RenderTradeShare } from './trade-actions.ts';
import { TradeHistoryPanel } from './trade-history-panel.tsx';
import './trade-dialogs.css';

function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="detail-panel" aria-label={title}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

type DetailTab = 'details' | 'history';
const detailTabs: readonly TabItem<DetailTab>[] = [
  { id: 'details', label: 'Details' },
  { id: 'history', label: 'History' },
];

/**
 * Trade Detail: Contract Details, Dates & Account, Financials, Closing Information and Last Updated (part 1 §2).
 * With `renderShare`, Share opens the trade's card over the detail: closing the card (Escape) comes back
 * here, with focus on Share.
 */
export function TradeDetailDialog({ trade, onClose, renderShare }: { trade: TradeListItem; onClose: () => void; renderShare?: RenderTradeShare }) {
  const today = useBusinessToday();
  const strategy = strategyByUid(trade.su);
  const accounts = useTradeAccounts();
  const account = accounts.data?.find((a) => a.uid === trade.au)?.name ?? '—';
  const open = trade.status === 1;
  const expiry = expiryDisplay(daysBetween(today, trade.ed));
  const [tab, setTab] = useState<DetailTab>('details');
  const { tabList, panelProps } = useTabs(detailTabs, tab, setTab);
  const [sharing, setSharing] = useState(false);
  const footer = renderShare && (
    <Button variant="secondary" icon={<Icon name="share" size={16} />} onClick={() => setSharing(true)}>
      Share
    </Button>
  );
  return (
    <>
      <Modal open onClose={onClose} title={`${trade.ticker} · ${strategy?.name ?? trade.su}`} size="lg" footer={footer}>
        {tabList({ label: 'Trade detail', className: 'detail-tabs', tabClassName: 'detail-tab' })}
        <div {...panelProps('history')}>{tab === 'history' && <TradeHistoryPanel uid={trade.uid} />}</div>
        <div className="detail-grid" {...panelProps('details')}>
          <Panel title="Contract Details">
            <Summary
              rows={[
                ['Ticker', trade.ticker],
                ['Strategy', strategy?.name ?? trade.su],
                // One status, worded as the lists word it ("Closed (BTC)"); how it ended is Disposition below.
                ['Status', open ? statusLabel(trade.status) : closedStatusLabel(trade)],
                ['Strikes', formatStrikes(trade.sp)],
                ['Contracts', String(trade.cs)],
                ['Net Delta', trimNumber(trade.nd)],
                ['Open Action', openActionLabel(trade.ot)],
                trade.spo !== null && ['Stock Price at Open', formatMoney(trade.spo)],
                trade.cb !== null && ['Cost Basis', formatMoney(trade.cb)],
                trade.tags.length > 0 && ['Tags', trade.tags.join(', ')],
                trade.notes !== '' && ['Notes', trade.notes],
              ]}
            />
          </Panel>
          <Panel title="Dates & Account">
            <Summary
              rows={[
                ['Account', account],
                ['Open Date', formatDate(trade.tod)],
                ['Expiration Date', <span className={open ? `tc-${expiry.tone}` : undefined}>{formatDate(trade.ed)}{open ? ` (${expiry.text})` : ''}</span>],
                [open ? 'Days Open' : 'Days Held', holdingPeriod(trade.do)],
              ]}
            />
          </Panel>
          <Panel title="Financials">
            <Summary
              rows={[
                ['Premium at Open', `${formatMoney(trade.pao)} ${transactionLabel(trade.ot)}`],
                ['Fee to Open', formatMoney(trade.nfto)],
                ['Collateral', formatMoney(trade.c)],
                !open && ['Net Premium Captured', formatMoney(trade.npc)],
                !open && ['Net Fee', formatMoney(trade.nfto + (trade.nftc ?? 0))],
                !open && ['Return on Risk', formatPercent(trade.ror)],
                !open && ['Annualised Return', formatPercent(trade.aroc)],
                trade.cg !== null && ['Capital Gain', formatMoney(trade.cg)],
              ]}
            />
          </Panel>
          <Panel title="Closing Information">
            {open ? (
              <p className="muted">This trade is open.</p>
            ) : (
              <>
                <Summary
                  rows={[
                    ['Close Date', formatDate(trade.tcd)],
                    // The dashboard's and pulse's word for how it ended (QA: "Closed (STC)" here, "Early Exit" there).
                    ['Disposition', trade.dis ?? '—'],
                    ['Close Action', closeActionLabel(trade.ct) || transactionLabel(trade.ct)],
                    ['Premium at Close', formatMoney(trade.pac)],
                    ['Fee to Close', formatMoney(trade.nftc)],
                  ]}
                />
                <Alert tone="info">Closed trades are final: they cannot be edited or deleted.</Alert>
              </>
            )}
          </Panel>
        </div>
        <footer className="detail-footer" hidden={tab !== 'details'}>Last Updated: {formatDateTime(trade.up)}</footer>
      </Modal>
      {sharing && renderShare?.(trade, () => setSharing(false))}
    </>
  );
}
