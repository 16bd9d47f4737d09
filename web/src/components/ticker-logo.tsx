import { useState } from 'react';
import { useConsoleConfig } from '@/lib/console-config.ts';
import { LEVERAGED_ETFS } from './leveraged-etfs.ts';
import './ticker-logo.css';

// Accessible white-on-colour pairs (contrast at least 4.5:1 with white text).
const PALETTE = ['#1f5eff', '#0f766e', '#7c3aed', '#b45309', '#be123c', '#0369a1', '#4d7c0f', '#a21caf', '#c2410c', '#334155'];
/** Logos that failed once in this page load are not asked for again by every row. */
const failed = new Set<string>();

export function tickerInitials(ticker: string): string {
  return ticker.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 2) || '?';
}

export function tickerColour(ticker: string): string {
  let h = 0;
  for (const c of ticker.toUpperCase()) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length] ?? '#334155';
}

/** The logo URL for a ticker, or null: no template configured, or a leveraged ETF (always initials). */
export function tickerLogoUrl(template: string | null | undefined, ticker: string): string | null {
  const symbol = ticker.trim().toUpperCase();
  if (!template || !symbol || LEVERAGED_ETFS.has(symbol)) return null;
  return template.replaceAll('{ticker}', encodeURIComponent(symbol));
}

/**
 * A ticker's logo from the operator's logo service (TICKER_LOGO_URL), else a coloured-initials badge.
 * Without the setting the browser makes no third-party request at all.
 */
export function TickerLogo({ ticker, size = 28 }: { ticker: string; size?: number }) {
  const config = useConsoleConfig();
  const url = tickerLogoUrl(config.data?.ticker_logo_url, ticker);
  const [broken, setBroken] = useState(false);
  const style = { width: size, height: size, fontSize: Math.round(size * 0.4) };
  if (url && !broken && !failed.has(url)) {
    return (
      <img
        className="ticker-logo"
        src={url}
        alt=""
        aria-hidden="true"
        width={size}
        height={size}
        style={style}
        loading="lazy"
        referrerPolicy="no-referrer"
        onError={() => {
          failed.add(url);
          setBroken(true);
        }}
      />
    );
  }
  return (
    <span className="ticker-logo ticker-initials" aria-hidden="true" data-ticker-initials={tickerInitials(ticker)} style={{ ...style, background: tickerColour(ticker) }}>
      {tickerInitials(ticker)}
    </span>
  );
}
