// @vitest-environment jsdom
import '@/test/dom.ts';
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { createColumnHelper, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table';
import type { TradeListItem } from '@oj/contracts/trade-list-item';
import type { TradeTableMeta } from './trade-actions.ts';
import { TradeRow } from './trade-table-body.tsx';

// Only the fields the rows read here; the cells count how often each trade is drawn.
const trade = (i: number) => ({ uid: `t${i}`, ticker: `T${i}` }) as TradeListItem;
let drawn: Record<string, number> = {};
const col = createColumnHelper<TradeListItem>();
const columns = [
  col.display({
    id: 'ticker',
    header: 'Ticker',
    cell: ({ row }) => {
      drawn[row.original.uid] = (drawn[row.original.uid] ?? 0) + 1;
      return row.original.ticker;
    },
  }),
] as ColumnDef<TradeListItem>[];
const meta: TradeTableMeta = { onAction: () => {}, accountName: () => '—', today: '2026-01-05', canShare: false };

function Table({ items, tableMeta = meta }: { items: TradeListItem[]; tableMeta?: TradeTableMeta }) {
  const table = useReactTable({ data: items, columns, getCoreRowModel: getCoreRowModel(), getRowId: (t) => t.uid, meta: tableMeta });
  return (
    <table>
      <tbody>
        {table.getRowModel().rows.map((row) => (
          <TradeRow key={row.id} row={row} meta={tableMeta} columns={columns} />
        ))}
      </tbody>
    </table>
  );
}

describe('TradeRow', () => {
  it('draws only the new rows when Load More adds a page (QA: every loaded row was drawn again)', () => {
    drawn = {};
    const first = Array.from({ length: 10 }, (_, i) => trade(i));
    const { rerender, container } = render(<Table items={first} />);
    const more = [...first, ...Array.from({ length: 10 }, (_, i) => trade(10 + i))];
    rerender(<Table items={more} />);
    expect(container.querySelectorAll('tbody tr')).toHaveLength(20);
    expect(Object.values(drawn).every((n) => n === 1), JSON.stringify(drawn)).toBe(true);
    expect(container.querySelector('tr[data-uid="t15"]')?.textContent).toBe('T15');
  });

  it('draws a row again when its trade or the meta changes', () => {
    drawn = {};
    const items = [trade(1), trade(2)];
    const { rerender, container } = render(<Table items={items} />);
    const edited = { ...trade(2), ticker: 'NEW' } as TradeListItem;
    rerender(<Table items={[items[0]!, edited]} />);
    expect(drawn).toEqual({ t1: 1, t2: 2 });
    expect(container.querySelector('tr[data-uid="t2"]')?.textContent).toBe('NEW');
    rerender(<Table items={[items[0]!, edited]} tableMeta={{ ...meta, today: '2026-01-06' }} />);
    expect(drawn).toEqual({ t1: 2, t2: 3 });
  });
});
