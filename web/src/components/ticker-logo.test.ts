import { describe, expect, it } from 'vitest';
import { tickerColour, tickerInitials, tickerLogoUrl } from './ticker-logo.tsx';

describe('ticker logos', () => {
  it('fills the template with the upper-cased, URL-encoded ticker', () => {
    expect(tickerLogoUrl('https://logos.example.com/{ticker}.png', 'aapl')).toBe('https://logos.example.com/AAPL.png');
    expect(tickerLogoUrl('https://logos.example.com/{ticker}.png?s={ticker}', 'BRK/B')).toBe('https://logos.example.com/BRK%2FB.png?s=BRK%2FB');
  });

  it('asks for no logo without a template, for a blank ticker, or for a leveraged ETF', () => {
    expect(tickerLogoUrl(null, 'AAPL')).toBeNull();
    expect(tickerLogoUrl(undefined, 'AAPL')).toBeNull();
    expect(tickerLogoUrl('https://logos.example.com/{ticker}.png', '  ')).toBeNull();
    for (const etf of ['TQQQ', 'sqqq', 'SOXL', 'UVXY']) expect(tickerLogoUrl('https://logos.example.com/{ticker}.png', etf)).toBeNull();
  });

  it('initials are the first two symbol characters; the colour is stable per ticker', () => {
    expect([tickerInitials('aapl'), tickerInitials('F'), tickerInitials('BRK.B'), tickerInitials('')]).toEqual(['AA', 'F', 'BR', '?']);
    expect(tickerColour('AAPL')).toBe(tickerColour('aapl'));
    expect(new Set(['AAPL', 'MSFT', 'SPY', 'TSLA', 'KO', 'F'].map(tickerColour)).size).toBeGreaterThan(1);
  });
});
