import { useMutation } from '@tanstack/react-query';
import { tradeExportFilename } from '@oj/contracts/trade-views';
import { api } from '@/lib/api-client.ts';
import { saveFile } from '@/lib/save-file.ts';
import type { TradeListFilters } from './trade-keys.ts';
import type { TradeStatusList } from './get-trades-by-status.ts';

/**
 * GET /trades/status/{status}/export: the list whole, with its filters, saved as a CSV file. Through the
 * API client (its session refresh and lapse handling), which reads the body as text: the text decoder
 * drops the file's byte-order mark, so it is put back, for a spreadsheet to read the file as UTF-8.
 */
export async function exportTrades(status: TradeStatusList, filters: TradeListFilters, today: string): Promise<string> {
  const text = await api.get<string>(`/trades/status/${status}/export`, { query: { ...filters }, timeoutMs: 120_000 });
  const name = tradeExportFilename(status, today, filters);
  saveFile(URL.createObjectURL(new Blob(['\uFEFF', text], { type: 'text/csv;charset=utf-8' })), name);
  return name;
}

export const useExportTrades = () =>
  useMutation({ mutationFn: ({ status, filters, today }: { status: TradeStatusList; filters: TradeListFilters; today: string }) => exportTrades(status, filters, today) });
