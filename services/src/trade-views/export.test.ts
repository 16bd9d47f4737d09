import { describe, expect, it } from 'vitest';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { TRADE_EXPORT_COLUMNS, tradeExportFilename } from '@oj/contracts/trade-views';
import { tradesCsv } from './export.ts';
import { csvTable } from '@oj/infra/testing/csv';


const trade = (over: Partial<TradeListItem>): TradeListItem => ({
  uid: 'T1', lid: 'T1', ticker: 'SPY', sp: [400, 395], c: 500, tod: '2026-03-02', tcd: null, ed: '2026-03-20', status: 1, pao: 120, pac: null, npc: null, nd: 0.25, cs: 1,
  notes: '', tags: [], ot: 1, ct: null, su: 'bull-put-spread', au: 'acct-1', auid: null, spo: 510.5, cb: null, lv: null, rf: null, pf: null, up: '2026-03-02T15:00:00Z',
  nfto: 1.3, nftc: null, ror: null, aroc: null, cg: null, do: 4, dis: null, rh: false, created_at: '2026-03-02T15:00:00Z', ...over,
});

describe('tradesCsv', () => {
  it('writes the header and one record per trade, figures as numbers, an open trade without its close', () => {
    const text = tradesCsv([trade({})], (uid) => (uid === 'acct-1' ? 'Schwab Income' : uid)).toString('utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    const { header, rows } = csvTable(text.slice(1));
    expect(header).toEqual([...TRADE_EXPORT_COLUMNS]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      Ticker: 'SPY', Strategy: 'Bull Put Spread', Account: 'Schwab Income', Status: 'Open', Disposition: '', 'Open Date': '2026-03-02', 'Expiration Date': '2026-03-20',
      'Close Date': '', Strikes: '400 / 395', Contracts: '1', 'Open Transaction': 'Credit', 'Premium at Open': '120', 'Fee to Open': '1.3', 'Close Transaction': '',
      'Premium at Close': '', 'Fee to Close': '', 'Net Premium': '', Collateral: '500', 'Days Held': '4', Delta: '0.25', 'Stock Price at Open': '510.5', 'Cost Basis': '', 'Trade ID': 'T1',
    });
    // A figure is written bare (a spreadsheet reads it as a number), a text quoted.
    expect(text).toContain(',120,1.3,');
    expect(text).toContain('"SPY","Bull Put Spread","Schwab Income","Open"');
  });

  it('keeps a loss a negative number, and never lets a text start a formula', () => {
    const closed = trade({ status: 2, tcd: '2026-03-05', ot: 2, ct: 1, pac: 30, npc: -90, nftc: 1.3, ror: -18.5, aroc: -1125.42, dis: 'Early Exit', ticker: 'QQQ', su: 'long-put', sp: [480] });
    const hostile = trade({ uid: 'T2', notes: '=HYPERLINK("http://evil","click") and "quotes"', tags: ['+tag', '@me'] });
    const text = tradesCsv([closed, hostile], () => '-Margin').toString('utf8');
    const [a, b] = csvTable(text.slice(1)).rows;
    expect(a).toMatchObject({ 'Open Transaction': 'Debit', 'Close Transaction': 'Credit', 'Net Premium': '-90', 'ROR %': '-18.5', 'ARR %': '-1125.42', Status: 'Closed', Disposition: 'Early Exit', Account: "'-Margin" });
    expect(b).toMatchObject({ Notes: `'=HYPERLINK("http://evil","click") and "quotes"`, Tags: "'+tag; @me" });
    expect(text).toContain(`"'=HYPERLINK(""http://evil"",""click"") and ""quotes"""`);
  });

  it('names the file by its list, its date range when it has one, and the day', () => {
    expect(tradeExportFilename('closed', '2026-02-02', {})).toBe('closed-trades-2026-02-02.csv');
    expect(tradeExportFilename('open', '2026-02-02', { sd: '2026-01-01', ed: '2026-01-31' })).toBe('open-trades-2026-01-01-to-2026-01-31-2026-02-02.csv');
  });
});
