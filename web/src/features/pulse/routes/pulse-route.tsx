import { useState, type FormEvent, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Badge } from '@/components/ui/badge.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { formatDate, formatMoney, formatPercent } from '@/lib/format.ts';
import type { QueryClient } from '@tanstack/react-query';
import { isRefusal, pulseErrorText, pulseQueryOptions, usePulse } from '../api/get-pulse.ts';
import { PulseDonut } from '../components/pulse-donut.tsx';
import { PulseGauge, winRateColor } from '../components/pulse-gauge.tsx';
import { ClosedTradesTable, OpenTradesTable } from '../components/pulse-trade-tables.tsx';
import { GAUGE_CAPS, TIMEFRAMES, tickerError, viewOf, type PulseView } from '../utils/pulse-view.ts';
import '../pulse.css';

/**
 * Pulse (part 2 §2, §4, §5): one ticker over a timeframe. Typing a ticker clears the results and the
 * timeframe; choosing a timeframe fetches, unless the answer already loaded for this ticker covers it
 * (an equal or wider window), which only re-filters. `request` is what was fetched, `timeframe` what
 * is shown: they differ exactly when the view is a re-filter of a wider answer. What is shown is kept
 * in the address (`?ticker=AAPL&timeframe=5`), so a reload, Back or a shared link shows it again.
 */
export interface PulseRouteProps {
  /** A trade's share card (the app composes the share feature's modal in here). */
  renderTradeShare?: (trade: TradeListItem, onClose: () => void) => ReactNode;
}

export function PulseRoute({ renderTradeShare }: PulseRouteProps = {}) {
  const [params, setParams] = useSearchParams();
  const [initial] = useState(() => fromAddress(params));
  const [ticker, setTicker] = useState(initial.ticker);
  const [timeframe, setTimeframe] = useState<number | null>(initial.timeframe);
  const [request, setRequest] = useState<{ ticker: string; timeframe: number } | null>(initial.timeframe === null ? null : { ticker: initial.ticker, timeframe: initial.timeframe });
  const [touched, setTouched] = useState(false);
  const [sharing, setSharing] = useState<TradeListItem | null>(null);
  const pulse = usePulse(request);
  const loaded = pulse.data && request && pulse.data.ticker === request.ticker ? pulse.data : undefined;
  const view = timeframe !== null ? viewOf(loaded, ticker, timeframe) : null;
  const error = tickerError(ticker, timeframe !== null || touched);

  const choose = (tf: number) => {
    setTouched(true);
    if (tickerError(ticker, true)) {
      setTimeframe(null);
      return;
    }
    setTimeframe(tf);
    setParams({ ticker, timeframe: String(tf) }, { replace: true });
    // Re-filter when the loaded answer covers this window; otherwise ask the server. The same
    // window asked again after a failure asks again (the query's key is unchanged, so say so).
    if (viewOf(loaded, ticker, tf)) return;
    if (request?.ticker === ticker && request.timeframe === tf && pulse.isError) void pulse.refetch();
    else setRequest({ ticker, timeframe: tf });
  };
  const onTicker = (raw: string) => {
    setTicker(raw.toUpperCase().trim());
    setTimeframe(null);
    setRequest(null);
    setTouched(false);
    if (params.has('timeframe')) setParams({}, { replace: true });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    choose(timeframe ?? 5);
  };

  const fetching = request !== null && timeframe !== null && !view && (pulse.isFetching || pulse.isPending);
  const failed = request !== null && timeframe !== null && !view && pulse.isError;

  return (
    <>
      <PageHeader
        title="Pulse"
        description="Ticker analysis: premium, returns and dispositions of one symbol over a timeframe."
        breadcrumb={[{ label: 'Home', to: '/dashboard' }, { label: 'Pulse' }]}
        actions={<Badge tone="info">Beta</Badge>}
      />
      <form className="card pulse-controls" onSubmit={onSubmit} noValidate>
        <div className="pulse-ticker">
          <label htmlFor="pulse-ticker" className="field-label">
            Ticker
          </label>
          <input
            id="pulse-ticker"
            className={`input pulse-ticker-input${error ? ' is-invalid' : ''}`}
            value={ticker}
            onChange={(e) => onTicker(e.target.value)}
            placeholder="AAPL"
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            maxLength={12}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'pulse-ticker-error' : undefined}
          />
          {error && (
            <p id="pulse-ticker-error" className="form-error" role="alert">
              {error}
            </p>
          )}
        </div>
        <div className="pulse-timeframes" role="group" aria-label="Timeframe">
          {TIMEFRAMES.map((t) => (
            <button key={t.code} type="button" className={`pulse-tf${timeframe === t.code ? ' is-active' : ''}`} aria-pressed={timeframe === t.code} title={t.name} onClick={() => choose(t.code)}>
              {t.label}
            </button>
          ))}
        </div>
      </form>

      {failed ? (
        <Alert tone="danger" title={pulseErrorText(pulse.error)}>
          {!isRefusal(pulse.error) && (
            <Button variant="secondary" size="sm" onClick={() => void pulse.refetch()} loading={pulse.isFetching}>
              Try again
            </Button>
          )}
        </Alert>
      ) : fetching ? (
        <div className="card pulse-loading" role="status">
          <Spinner label="Loading pulse" />
        </div>
      ) : view ? (
        <PulseResults ticker={ticker} view={view} onShare={renderTradeShare ? setSharing : undefined} />
      ) : (
        <div className="card pulse-intro">
          <Icon name="pulse" size={28} />
          <p>Enter a ticker and choose a timeframe to see its premium, win rate, returns and how its trades ended.</p>
        </div>
      )}
      {sharing && renderTradeShare?.(sharing, () => setSharing(null))}
    </>
  );
}

/** The ticker in the address, and its timeframe when both are valid (then it is fetched at once). */
export function fromAddress(params: URLSearchParams): { ticker: string; timeframe: number | null } {
  const ticker = params.get('ticker')?.toUpperCase().trim() ?? '';
  const timeframe = Number(params.get('timeframe'));
  return { ticker, timeframe: tickerError(ticker, true) || !TIMEFRAMES.some((t) => t.code === timeframe) ? null : timeframe };
}

function PulseResults({ ticker, view: v, onShare }: { ticker: string; view: PulseView; onShare: ((t: TradeListItem) => void) | undefined }) {
  const tf = TIMEFRAMES.find((t) => t.code === v.timeframe)!;
  const q = v.quadrant;
  return (
    <div className="pulse-results">
      <section className="card pulse-headline" aria-label="Premium">
        <div>
          <div className="pulse-headline-label">
            {ticker} · {tf.name}
          </div>
          <div className={`pulse-headline-value ${v.premium > 0 ? 'pulse-pos' : v.premium < 0 ? 'pulse-neg' : ''}`} data-testid="pulse-premium">
            {formatMoney(v.premium)}
          </div>
          <div className="muted">
            Premium collected {v.from === v.to ? `on ${formatDate(v.from)}` : `${formatDate(v.from)} – ${formatDate(v.to)}`}
          </div>
        </div>
        <dl className="pulse-quadrant" aria-label="Stats">
          <div>
            <dt>Net P/L</dt>
            <dd className={q.net_profit_loss > 0 ? 'pulse-pos' : q.net_profit_loss < 0 ? 'pulse-neg' : ''}>{formatMoney(q.net_profit_loss)}</dd>
          </div>
          <div>
            <dt>Fees</dt>
            <dd>{formatMoney(q.fees)}</dd>
          </div>
          <div>
            <dt>Trades</dt>
            <dd>
              {q.opened} opened · {q.closed} closed
            </dd>
          </div>
          <div>
            <dt>Wins</dt>
            <dd>
              {q.wins} of {q.closed}
            </dd>
          </div>
          <div>
            <dt>Capital gain</dt>
            <dd>{formatMoney(q.capital_gain)}</dd>
          </div>
          <div>
            <dt>Capture rate</dt>
            <dd>{formatPercent(v.gauges.capture_rate)}</dd>
          </div>
          <div>
            <dt>Avg delta</dt>
            <dd>{v.gauges.delta === null ? '—' : v.gauges.delta.toFixed(2)}</dd>
          </div>
        </dl>
      </section>

      <section className="card pulse-gauges" aria-label="Gauges">
        <PulseGauge label="Win Rate" value={v.gauges.win_rate} max={GAUGE_CAPS.percent} unit="%" color={winRateColor(v.gauges.win_rate)} />
        <PulseGauge label="ROR" value={v.gauges.ror} max={GAUGE_CAPS.percent} unit="%" />
        <PulseGauge label="ARR" value={v.gauges.arr} max={GAUGE_CAPS.percent} unit="%" />
        <PulseGauge label="Avg Days to Expiry" value={v.gauges.avg_days_to_expiry} max={GAUGE_CAPS.days} unit="days" />
        <PulseGauge label="Avg Days Held" value={v.gauges.avg_days_held} max={GAUGE_CAPS.days} unit="days" />
      </section>

      <div className="pulse-charts">
        <section className="card pulse-chart" aria-label="Income by strategy">
          <h2>Income by Strategy</h2>
          <PulseDonut
            label="Income by strategy"
            money
            center={formatMoney(v.income_by_strategy.reduce((s, x) => s + x.npc, 0))}
            slices={v.income_by_strategy.filter((s) => s.npc !== 0).map((s) => ({ name: s.name, value: Math.abs(s.npc), caption: `${formatMoney(s.npc)} · ${s.count} ${s.count === 1 ? 'trade' : 'trades'}`, loss: s.npc < 0 }))}
          />
        </section>
        <section className="card pulse-chart" aria-label="Disposition">
          <h2>Disposition</h2>
          <PulseDonut label="Disposition" center={String(v.disposition.reduce((s, x) => s + x.count, 0))} slices={v.disposition.map((d) => ({ name: d.disposition, value: d.count }))} />
        </section>
      </div>

      <section className="card pulse-trades" aria-label="Open trades">
        <h2>
          Open Trades <span className="muted">({v.open_trades.length})</span>
        </h2>
        <OpenTradesTable trades={v.open_trades} onShare={onShare} />
      </section>
      <section className="card pulse-trades" aria-label="Closed trades">
        <h2>
          Closed Trades <span className="muted">({v.closed_trades.length})</span>
        </h2>
        <ClosedTradesTable trades={v.closed_trades} onShare={onShare} />
      </section>
    </div>
  );
}

/**
 * The route's handle: locked for a lapsed plan; on a pulse link or reload with a valid ticker and
 * timeframe (`?ticker=AAPL&timeframe=5`), the shell asks for that pulse as it opens, beside the accounts
 * and strategies it waits for, with the page's own query, so the page finds it asked already.
 */
export const pulseHandle = {
  requiresActiveSubscription: true,
  prefetch: (queryClient: QueryClient) => {
    const { ticker, timeframe } = fromAddress(new URLSearchParams(window.location.search));
    if (timeframe !== null) void queryClient.prefetchQuery(pulseQueryOptions(ticker, timeframe));
  },
};
