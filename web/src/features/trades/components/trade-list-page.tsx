import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { getCoreRowModel, useReactTable, flexRender, type ColumnDef } from '@tanstack/react-table';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { strategyCatalogue } from '@oj/contracts/strategies';
import { PageHeader } from '@/components/layout/page-header.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Icon } from '@/components/ui/icons.tsx';
import { LoadingOverlay } from '@/components/ui/loading-overlay.tsx';
import { useToast } from '@/components/ui/toast.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { useBusinessToday } from '@/lib/business-day.ts';
import { useItemsPerPage } from '@/lib/settings.ts';
import { useStrategies } from '../api/get-strategies.ts';
import { useExportTrades } from '../api/export-trades.ts';
import { useTradesByStatus, type TradeStatusList } from '../api/get-trades-by-status.ts';
import { useTradeAccounts } from '../api/get-trade-accounts.ts';
import type { TradeListFilters, TradeListKind } from '../api/trade-keys.ts';
import { useTradeList } from '../hooks/use-trade-list.ts';
import { closedTradeColumns } from './closed-trade-columns.tsx';
import { openTradeColumns } from './open-trade-columns.tsx';
import type { TradeAction, TradeListSlots, TradeTableMeta } from './trade-actions.ts';
import { TradeDialogHost } from './trade-dialog-host.tsx';
import { TradeTableBody, type TradeTableBodyHandle } from './trade-table-body.tsx';
import { TradeFilterHeader } from './trade-filter-header.tsx';
import { droppedRangeOf, filterStateOf, filtersOf, hasDateRange, OUTSIDE_RANGE_PAGE_SIZE, paramsOf, withKnownChoices, withoutDateRange, type FilterState } from '../utils/filter-state.ts';
import { dateRangePresets } from '../utils/date-range.ts';
import { isWindowed } from '../utils/list-window.ts';
import './trades.css';

export interface TradeListPageProps extends TradeListSlots {
  kind: TradeListKind;
  title: string;
  description: string;
}

/**
 * Export CSV: the list as the trader has it (search, filters, date range), every page of it, as a file for
 * a spreadsheet or an accountant. The file's columns are in contracts (TRADE_EXPORT_COLUMNS).
 */
function ExportButton({ status, filters, today, disabled }: { status: TradeStatusList; filters: TradeListFilters; today: string; disabled: boolean }) {
  const exporter = useExportTrades();
  const toast = useToast();
  const run = () =>
    exporter.mutate(
      { status, filters, today },
      { onSuccess: (name) => toast.success('Exported', `Saved as ${name}.`), onError: (e) => toast.error('Error', errorMessage(e, 'Failed to export trades.')) },
    );
  return (
    <Button variant="secondary" size="sm" icon={<Icon name="download" size={16} />} loading={exporter.isPending} disabled={disabled} onClick={run} title="Every trade of this list, with its search and filters, as a CSV file">
      Export CSV
    </Button>
  );
}

const columnsOf = (kind: TradeListKind) => (kind === 'open' || kind === 'expiring' ? openTradeColumns : closedTradeColumns) as ColumnDef<TradeListItem>[];

/**
 * How many open positions the Open list's date range leaves out (0 on the other lists, and without a
 * range): the same search over all dates, counted on a one-row page. The range filters by open date, so
 * with the default Year a position opened 13 months ago was on no list at all (QA), though it is live risk.
 */
function useOpenOutsideRange(kind: TradeListKind, filters: ReturnType<typeof filtersOf>, shown: number | undefined): number {
  const ranged = kind === 'open' && hasDateRange(filters);
  const all = useTradesByStatus('open', useMemo(() => withoutDateRange(filters), [filters]), OUTSIDE_RANGE_PAGE_SIZE, ranged);
  const total = all.isPlaceholderData ? undefined : all.data?.pages[0]?.total;
  return ranged && total !== undefined && shown !== undefined ? Math.max(0, total - shown) : 0;
}

/** The shared layout of the Open, Expiring, Closed and Rolled pages (part 1 §2). */
export function TradeListPage({ kind, title, description, renderTradeShare }: TradeListPageProps) {
  // The search and filters live in the address: each change is a step Back undoes, and a reload or a
  // shared link shows the same list.
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const today = useBusinessToday();
  const accounts = useTradeAccounts();
  const strategies = useStrategies();
  const asked = useMemo(() => filterStateOf(new URLSearchParams(search), today), [search, today]);
  // An account or strategy the trader does not have (a stale or someone else's link) is dropped, not sent,
  // and the address says what is shown.
  const filterState = useMemo(() => withKnownChoices(asked, accounts.data, strategies.data), [asked, accounts.data, strategies.data]);
  // A date range the rules refuse is shown as the default: the address says what is shown, and the page why.
  const dropped = useMemo(() => droppedRangeOf(new URLSearchParams(search), today), [search, today]);
  const [droppedNote, setDroppedNote] = useState<string | null>(null);
  useEffect(() => {
    if (dropped) setDroppedNote(dropped);
    if (filterState !== asked || dropped) setParams(paramsOf(filterState), { replace: true });
  }, [filterState, asked, dropped, setParams]);
  const setFilterState = useCallback(
    (next: FilterState) => {
      setDroppedNote(null);
      setParams(paramsOf(next));
    },
    [setParams],
  );
  const [action, setAction] = useState<TradeAction | null>(null);
  const tableRef = useRef<HTMLDivElement>(null);
  // A dialog returns focus to the row that opened it; when that row left the list (closed, rolled,
  // deleted), focus goes to the table instead of being lost.
  const closeDialog = useCallback(() => {
    setAction(null);
    window.setTimeout(() => {
      if (document.activeElement === document.body) tableRef.current?.focus();
    }, 0);
  }, []);
  const filters = useMemo(() => filtersOf(filterState, today), [filterState, today]);
  // The stored ItemsPerPage setting keys the list queries, so changing it starts the lists over.
  const list = useTradeList(kind, filters, useItemsPerPage());
  const hiddenOpen = useOpenOutsideRange(kind, filters, list.isPlaceholderData ? undefined : list.data?.pages[0]?.total);
  // Load More hands focus to the first row it loaded (its first control): the button goes with the last
  // page, and focus went with it to <body> (QA, keyboard pass); before that, the next Tab skipped the new rows.
  // A windowed list (trade-table-body.tsx) draws the row first if it is out of the window.
  const firstNewRow = useRef<number | null>(null);
  const rows = useRef<TradeTableBodyHandle>(null);
  useEffect(() => {
    const index = firstNewRow.current;
    const trade = index === null ? undefined : list.items[index];
    if (index === null || !trade) return;
    firstNewRow.current = null;
    void rows.current?.rowOf(trade.uid, index).then((row) => {
      (row?.querySelector<HTMLElement>('a[href], button:not([disabled]), [tabindex]:not([tabindex="-1"])') ?? tableRef.current)?.focus();
    });
  }, [list.items]);
  const loadMore = () => {
    firstNewRow.current = list.items.length;
    void list.fetchNextPage();
  };

  const accountNames = useMemo(() => new Map((accounts.data ?? []).map((a) => [a.uid, a.name])), [accounts.data]);
  const accountName = useCallback((uid: string) => accountNames.get(uid) ?? '—', [accountNames]);
  const canShare = Boolean(renderTradeShare);
  const meta = useMemo<TradeTableMeta>(() => ({ onAction: setAction, accountName, today, canShare }), [accountName, today, canShare]);

  const columns = columnsOf(kind);
  const table = useReactTable({
    data: list.items,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (t) => t.uid,
    meta,
  });

  const loading = list.isPending || accounts.isPending || strategies.isPending;
  const [refreshing, setRefreshing] = useState(false);
  // Background reconciliation after an action refetches silently; only a search or a refresh dims the table.
  const searching = list.isPlaceholderData || refreshing;
  const refresh = () => {
    setRefreshing(true);
    void list.refetch().finally(() => setRefreshing(false));
  };

  return (
    <section className="trade-list-page">
      <PageHeader
        title={title}
        description={description}
        breadcrumb={[{ label: 'Dashboard', to: '/dashboard' }, { label: 'Trades' }, { label: title }]}
        actions={kind === 'expiring' ? undefined : <ExportButton status={kind} filters={filters} today={today} disabled={loading || list.isError} />}
      />
      <TradeFilterHeader
        value={filterState}
        onChange={setFilterState}
        onRefresh={refresh}
        refreshing={searching}
        accounts={accounts.data ?? []}
        strategies={strategies.data ?? strategyCatalogue}
      />
      {list.isError && (
        <Alert tone="danger" title={errorMessage(list.error, filterState.ticker || filterState.au || filterState.su ? 'Failed to fetch search results.' : 'Failed to fetch trades.')}>
          <Button variant="secondary" size="sm" onClick={refresh} loading={refreshing}>
            Try again
          </Button>
        </Alert>
      )}
      {droppedNote && (
        <Alert tone="info" title="The link's date range was not used.">
          <p>
            {droppedNote} Showing {dateRangePresets.find((p) => p.value === filterState.preset)?.label ?? 'the default range'}.
          </p>
        </Alert>
      )}
      {hiddenOpen > 0 && (
        <Alert tone="info" title={`${hiddenOpen} more open ${hiddenOpen === 1 ? 'position is' : 'positions are'} outside this date range.`}>
          <p>The range applies to the open date: a position opened before it is still open.</p>
          <Button variant="secondary" size="sm" onClick={() => setFilterState({ ...filterState, preset: 'all' })}>
            Show All Dates
          </Button>
        </Alert>
      )}
      <LoadingOverlay show={loading || searching} label="Loading trades">
        <div className="trade-table-wrap" ref={tableRef} tabIndex={0} role="region" aria-label={`${title} table`}>
          <table
            className={`trade-table phone-cards trade-table-${kind === 'open' || kind === 'expiring' ? 'open' : 'closed'}`}
            // Windowed, the rows not drawn still count: a screen reader says "row 812 of 3,001".
            aria-rowcount={isWindowed(list.items.length) ? list.items.length + 1 : undefined}
          >
            <thead>
              {table.getHeaderGroups().map((hg) => (
                <tr key={hg.id}>
                  {hg.headers.map((h) => (
                    <th key={h.id} scope="col" className={`th-${h.column.id}`}>
                      {h.isPlaceholder ? null : flexRender(h.column.columnDef.header, h.getContext())}
                    </th>
                  ))}
                </tr>
              ))}
            </thead>
            <TradeTableBody rows={table.getRowModel().rows} meta={meta} columns={columns} ref={rows} />
          </table>
          {!loading && !list.isError && list.items.length === 0 && <EmptyState title="No trade data available" />}
        </div>
      </LoadingOverlay>
      <div className="trade-list-footer">
        {/* Kept in the layout while loading (hidden), so the footer does not jump when the count arrives. */}
        <span className="trade-list-count" aria-live="polite" style={loading || (list.isError && list.items.length === 0) ? { visibility: 'hidden' } : undefined}>
          Showing {list.items.length} out of {list.total} Trades
        </span>
        {list.hasNextPage && (
          <Button variant="secondary" onClick={loadMore} loading={list.isFetchingNextPage}>
            Load More
          </Button>
        )}
      </div>
      <TradeDialogHost action={action} onClose={closeDialog} renderTradeShare={renderTradeShare} />
    </section>
  );
}
