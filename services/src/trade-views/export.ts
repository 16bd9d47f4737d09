import { tradeStatusNames, transactionNames, type TradeStatusCode } from '@oj/contracts/journal-events';
import { strategyByUid } from '@oj/contracts/strategies';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { TRADE_EXPORT_COLUMNS } from '@oj/contracts/trade-views';
import { csvNumber, csvText } from '../app/csv.ts';

const transaction = (t: number | null): string => (t === null ? undefined : transactionNames[t]) ?? '';

/** One trade as a CSV record, in TRADE_EXPORT_COLUMNS' order. */
function record(t: TradeListItem, accountName: (uid: string) => string): string {
  const fields = [
    csvText(t.ticker),
    csvText(strategyByUid(t.su)?.name ?? t.su),
    csvText(accountName(t.au)),
    csvText(tradeStatusNames[t.status as TradeStatusCode] ?? String(t.status)),
    csvText(t.dis ?? ''),
    csvText(t.tod),
    csvText(t.ed),
    csvText(t.tcd ?? ''),
    csvText(t.sp.join(' / ')),
    csvNumber(t.cs),
    csvText(transaction(t.ot)),
    csvNumber(t.pao),
    csvNumber(t.nfto),
    csvText(transaction(t.ct)),
    csvNumber(t.pac),
    csvNumber(t.nftc),
    csvNumber(t.npc),
    csvNumber(t.c),
    csvNumber(t.ror),
    csvNumber(t.aroc),
    csvNumber(t.cg),
    csvNumber(t.do),
    csvNumber(t.nd),
    csvNumber(t.spo),
    csvNumber(t.cb),
    csvText(t.tags.join('; ')),
    csvText(t.notes),
    csvText(t.uid),
  ];
  return `${fields.join(',')}\r\n`;
}

/**
 * A status list as a CSV file (RFC 4180, UTF-8 with a byte-order mark so a spreadsheet reads a note's
 * accents as typed): the header, then one record per trade in the list's order. `accountName` gives an
 * account's name from its uid (the uid itself for an account no longer there).
 */
export function tradesCsv(items: readonly TradeListItem[], accountName: (uid: string) => string): Buffer {
  const lines = [`${TRADE_EXPORT_COLUMNS.map(csvText).join(',')}\r\n`, ...items.map((t) => record(t, accountName))];
  return Buffer.from(`\uFEFF${lines.join('')}`, 'utf8');
}
