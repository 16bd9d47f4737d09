import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { useRollHistory, type RollHistoryItem } from '../api/get-roll-history.ts';
import { formatStrikes, statusLabel } from '../utils/trade-labels.ts';
import './trade-dialogs.css';

/** The position as the trader entered it, before partial closes or rolls cut it into parts. */
export interface EnteredPosition {
  uid: string;
  strike_prices: number[];
  trade_open_date: string;
  expiration_date: string;
  contract_size: number;
  premium_at_open: number;
  /** Contracts of the parts still open. */
  open_contracts: number;
}

export type Node = { kind: 'trade'; item: RollHistoryItem; children: Node[] } | { kind: 'position'; entered: EnteredPosition; children: Node[] };

/**
 * The chain as a tree. A position that a partial close or partial roll cut into parts is drawn as the
 * trader entered it (all its contracts and premium), its parts side by side beneath it: the part that
 * was closed (or rolled) beside the remainder, never one nested under the other. A trade's children
 * are the trades rolled from it.
 */
export function rollTree(items: readonly RollHistoryItem[]): Node[] {
  const byUid = new Map(items.map((i) => [i.uid, i]));
  const order = new Map(items.map((i, n) => [i.uid, n]));
  const partOf = (i: RollHistoryItem) => (i.partial_of_uid && byUid.has(i.partial_of_uid) ? i.partial_of_uid : null);
  // A remainder's part-of chain leads to the trade the position was entered as.
  const positionRoot = (i: RollHistoryItem): string => {
    let cur = i;
    const seen = new Set<string>();
    for (let p = partOf(cur); p !== null && !seen.has(p); p = partOf(cur)) {
      seen.add(cur.uid);
      cur = byUid.get(p) ?? cur;
    }
    return cur.uid;
  };
  const parts = new Map<string, RollHistoryItem[]>();
  const rolledFrom = new Map<string | null, RollHistoryItem[]>();
  for (const item of items) {
    if (partOf(item)) {
      const root = positionRoot(item);
      parts.set(root, [...(parts.get(root) ?? []), item]);
      continue;
    }
    const parent = item.rolled_from_uid && byUid.has(item.rolled_from_uid) ? item.rolled_from_uid : null;
    rolledFrom.set(parent, [...(rolledFrom.get(parent) ?? []), item]);
  }
  const byOpen = (a: RollHistoryItem, b: RollHistoryItem) => a.trade_open_date.localeCompare(b.trade_open_date) || (order.get(a.uid) ?? 0) - (order.get(b.uid) ?? 0);
  const tradeNode = (item: RollHistoryItem, seen: Set<string>): Node => ({ kind: 'trade', item, children: positions(item.uid, new Set([...seen, item.uid])) });
  const positions = (parent: string | null, seen: Set<string>): Node[] =>
    (rolledFrom.get(parent) ?? [])
      .filter((i) => !seen.has(i.uid))
      .sort(byOpen)
      .map((root) => {
        const rest = (parts.get(root.uid) ?? []).filter((i) => !seen.has(i.uid)).sort(byOpen);
        if (rest.length === 0) return tradeNode(root, seen);
        const all = [root, ...rest];
        const entered: EnteredPosition = {
          uid: root.uid,
          strike_prices: root.strike_prices,
          trade_open_date: root.trade_open_date,
          expiration_date: root.expiration_date,
          contract_size: all.reduce((n, i) => n + i.contract_size, 0),
          premium_at_open: Math.round(all.reduce((n, i) => n + i.premium_at_open, 0) * 100) / 100,
          open_contracts: all.filter((i) => i.status === 1).reduce((n, i) => n + i.contract_size, 0),
        };
        return { kind: 'position', entered, children: all.map((i) => tradeNode(i, seen)) };
      });
  return positions(null, new Set());
}

const contracts = (n: number) => `${n} ${n === 1 ? 'contract' : 'contracts'}`;

function TreeNode({ node, current, depth }: { node: Node; current: string; depth: number }) {
  const children = node.children.length > 0 && (
    <ul role="group">
      {node.children.map((c) => (
        <TreeNode key={c.kind === 'trade' ? c.item.uid : `entered-${c.entered.uid}`} node={c} current={current} depth={depth + 1} />
      ))}
    </ul>
  );
  if (node.kind === 'position') {
    const { entered } = node;
    return (
      <li role="treeitem" aria-expanded aria-level={depth} data-testid="roll-position">
        <div className="roll-node roll-node-position">
          <div className="roll-node-head">
            <strong>{formatStrikes(entered.strike_prices)}</strong>
            <span className="roll-status roll-status-entered">As entered</span>
          </div>
          <div className="roll-node-body">
            <span>Opened {formatDate(entered.trade_open_date)}</span>
            <span>Expires {formatDate(entered.expiration_date)}</span>
            <span>{contracts(entered.contract_size)}</span>
            <span>Open {formatMoney(entered.premium_at_open)}</span>
            {entered.open_contracts > 0 && <span>{contracts(entered.open_contracts)} still open</span>}
          </div>
        </div>
        {children}
      </li>
    );
  }
  const { item } = node;
  return (
    <li role="treeitem" aria-expanded={node.children.length > 0 ? true : undefined} aria-level={depth} aria-current={item.uid === current ? 'true' : undefined} data-testid="roll-trade">
      <div className={`roll-node${item.uid === current ? ' roll-node-current' : ''}`}>
        <div className="roll-node-head">
          <strong>{formatStrikes(item.strike_prices)}</strong>
          <span className={`roll-status roll-status-${item.status}`}>{statusLabel(item.status)}</span>
        </div>
        <div className="roll-node-body">
          <span>Opened {formatDate(item.trade_open_date)}</span>
          <span>Expires {formatDate(item.expiration_date)}</span>
          <span>{contracts(item.contract_size)}</span>
          <span>Open {formatMoney(item.premium_at_open)}</span>
          {item.trade_close_date && <span>Closed {formatDate(item.trade_close_date)}</span>}
          {item.premium_at_close !== null && <span>Close {formatMoney(item.premium_at_close)}</span>}
        </div>
      </div>
      {children}
    </li>
  );
}

/** Roll History: static backdrop, Retry on error (part 1 §2, §8). */
export function RollHistoryDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const history = useRollHistory(trade.uid);
  const tree = history.data ? rollTree(history.data) : [];
  return (
    <Modal open onClose={onClose} title={`Roll History · ${trade.ticker}`} size="md" closeOnBackdrop={false}>
      {history.isPending ? (
        <div className="dialog-loading">
          <Spinner label="Loading roll history" />
        </div>
      ) : history.isError ? (
        <Alert tone="danger">
          {errorMessage(history.error, 'Failed to fetch roll history')}{' '}
          <Button size="sm" variant="secondary" onClick={() => void history.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : tree.length === 0 ? (
        <EmptyState title="No roll history data available" />
      ) : (
        <ul className="roll-tree" role="tree" aria-label="Roll history">
          {tree.map((n) => (
            <TreeNode key={n.kind === 'trade' ? n.item.uid : `entered-${n.entered.uid}`} node={n} current={trade.uid} depth={1} />
          ))}
        </ul>
      )}
    </Modal>
  );
}
