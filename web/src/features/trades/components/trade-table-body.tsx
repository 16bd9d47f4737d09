import { memo, useImperativeHandle, useLayoutEffect, useRef, useState, type Ref, type RefObject } from 'react';
import { flexRender, type ColumnDef, type Row } from '@tanstack/react-table';
import { useWindowVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { isWindowed } from '../utils/list-window.ts';
import type { TradeTableMeta } from './trade-actions.ts';

/** Rows drawn beyond each edge of the viewport: Tab and the arrow keys find the next row already there. */
const OVERSCAN = 12;

interface TradeRowProps {
  row: Row<TradeListItem>;
  /** Not read here (the cells read the table's meta and columns): compared, so a change redraws the row. */
  meta: TradeTableMeta;
  columns: ColumnDef<TradeListItem>[];
  /** Windowed: the row's place in the list, for the window's measurements and for screen readers. */
  index?: number;
  measure?: (element: HTMLTableRowElement | null) => void;
}

/**
 * One row of a list. What it draws depends only on its trade, the table's meta and the columns, so a row
 * is drawn again only when one of them changes: the table makes new Row objects for every row whenever
 * the list grows, and each Load More redrew every row loaded so far (QA: 2 to 4 s a click after 300 rows).
 */
export const TradeRow = memo(
  function TradeRow({ row, index, measure }: TradeRowProps) {
    return (
      <tr
        data-uid={row.original.uid}
        data-ticker={row.original.ticker}
        data-index={index}
        ref={measure}
        // The header row is row 1.
        aria-rowindex={index === undefined ? undefined : index + 2}
      >
        {row.getVisibleCells().map((cell) => (
          <td key={cell.id} className={`td-${cell.column.id}`} data-label={typeof cell.column.columnDef.header === 'string' ? cell.column.columnDef.header : undefined}>
            {flexRender(cell.column.columnDef.cell, cell.getContext())}
          </td>
        ))}
      </tr>
    );
  },
  (a, b) => a.row.original === b.row.original && a.meta === b.meta && a.columns === b.columns && a.index === b.index && a.measure === b.measure,
);

/** What the list page asks of its rows: bring one into view (Load More's focus hand-off). */
export interface TradeTableBodyHandle {
  /** The row of `uid`, scrolled into the window first when the list is windowed and it is not drawn. */
  rowOf(uid: string, index: number): Promise<HTMLTableRowElement | null>;
}

interface TradeTableBodyProps {
  rows: Row<TradeListItem>[];
  meta: TradeTableMeta;
  columns: ColumnDef<TradeListItem>[];
  ref: Ref<TradeTableBodyHandle>;
}

const rowIn = (body: HTMLTableSectionElement | null, uid: string) => body?.querySelector<HTMLTableRowElement>(`tr[data-uid="${CSS.escape(uid)}"]`) ?? null;
const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

/** The rows of a list: all of them, or from WINDOWED_FROM rows (../utils/list-window.ts), those near the viewport. */
export function TradeTableBody({ rows, meta, columns, ref }: TradeTableBodyProps) {
  const body = useRef<HTMLTableSectionElement>(null);
  const windowed = isWindowed(rows.length);
  const virtualizer = useRef<Virtualizer<Window, HTMLTableRowElement> | null>(null);
  useImperativeHandle(
    ref,
    () => ({
      async rowOf(uid, index) {
        const drawn = rowIn(body.current, uid);
        if (drawn || !virtualizer.current) return drawn;
        virtualizer.current.scrollToIndex(index, { align: 'center' });
        await nextFrame();
        await nextFrame();
        return rowIn(body.current, uid);
      },
    }),
    [],
  );
  if (!windowed) {
    return (
      <tbody ref={body}>
        {rows.map((row) => (
          <TradeRow key={row.id} row={row} meta={meta} columns={columns} />
        ))}
      </tbody>
    );
  }
  return <WindowedRows rows={rows} meta={meta} columns={columns} body={body} virtualizer={virtualizer} />;
}

/** A row's height with the space below it (a card's margin on a phone), which the window adds up. */
const heightOf = (element: Element) => element.getBoundingClientRect().height + (parseFloat(getComputedStyle(element).marginBottom) || 0);

function WindowedRows({
  rows,
  meta,
  columns,
  body,
  virtualizer,
}: Omit<TradeTableBodyProps, 'ref'> & { body: RefObject<HTMLTableSectionElement | null>; virtualizer: RefObject<Virtualizer<Window, HTMLTableRowElement> | null> }) {
  // Where the rows start on the page, which the window's offsets count from: read after each render,
  // since what stands above the table (a notice, the filters) can change its place.
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const top = (body.current?.getBoundingClientRect().top ?? 0) + window.scrollY;
    if (Math.abs(top - margin) >= 1) setMargin(top);
  });
  // The height last measured is the estimate for the rows not drawn yet.
  const estimate = useRef(58);
  const v = useWindowVirtualizer<HTMLTableRowElement>({
    count: rows.length,
    estimateSize: () => estimate.current,
    overscan: OVERSCAN,
    scrollMargin: margin,
    getItemKey: (i) => rows[i]!.id,
    measureElement: (element) => {
      const h = heightOf(element);
      if (h > 0) estimate.current = h;
      return h;
    },
  });
  useLayoutEffect(() => {
    virtualizer.current = v;
    return () => {
      virtualizer.current = null;
    };
  }, [v, virtualizer]);
  const items = v.getVirtualItems();
  const first = items[0];
  const last = items.at(-1);
  const before = first ? first.start - margin : 0;
  const after = last ? Math.max(0, v.getTotalSize() - (last.end - margin)) : 0;
  const span = columns.length;
  return (
    <tbody ref={body}>
      {before > 0 && <Spacer height={before} span={span} />}
      {items.map((item) => (
        <TradeRow key={item.key} row={rows[item.index]!} meta={meta} columns={columns} index={item.index} measure={v.measureElement} />
      ))}
      {after > 0 && <Spacer height={after} span={span} />}
    </tbody>
  );
}

/** The height of the rows not drawn, above or below the window, so the page scrolls as if they were. */
function Spacer({ height, span }: { height: number; span: number }) {
  return (
    <tr className="trade-row-spacer" aria-hidden="true">
      <td colSpan={span} style={{ height }} />
    </tr>
  );
}
