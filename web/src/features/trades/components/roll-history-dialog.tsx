import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { Alert } from '../../../components/ui/alert.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { EmptyState } from '../../../components/ui/empty-state.tsx';
import { Modal } from '../../../components/ui/modal.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { formatDate, formatMoney } from '../../../lib/format.ts';
import { useRollHistory, type RollHistoryItem } from '../api/get-roll-history.ts';
import { formatStrikes, statusLabel } from '../utils/trade-labels.ts';
import './trade-dialogs.css';

interface Node {
  item: RollHistoryItem;
  children: Node[];
}

/** The chain as a tree: it starts at the trade rolled from nothing; each trade's children were rolled from it. */
export function rollTree(items: readonly RollHistoryItem[]): Node[] {
  const uids = new Set(items.map((i) => i.uid));
  const byParent = new Map<string | null, RollHistoryItem[]>();
  for (const item of items) {
    const parent = item.rolled_from_uid && uids.has(item.rolled_from_uid) ? item.rolled_from_uid : null;
    byParent.set(parent, [...(byParent.get(parent) ?? []), item]);
  }
  const build = (parent: string | null, seen: Set<string>): Node[] =>
    (byParent.get(parent) ?? [])
      .filter((i) => !seen.has(i.uid))
      .sort((a, b) => a.trade_open_date.localeCompare(b.trade_open_date))
      .map((item) => ({ item, children: build(item.uid, new Set([...seen, item.uid])) }));
  return build(null, new Set());
}

function TreeNode({ node, current, depth }: { node: Node; current: string; depth: number }) {
  const { item } = node;
  return (
    <li role="treeitem" aria-expanded={node.children.length > 0 ? true : undefined} aria-level={depth} aria-current={item.uid === current ? 'true' : undefined}>
      <div className={`roll-node${item.uid === current ? ' roll-node-current' : ''}`}>
        <div className="roll-node-head">
          <strong>{formatStrikes(item.strike_prices)}</strong>
          <span className={`roll-status roll-status-${item.status}`}>{statusLabel(item.status)}</span>
        </div>
        <div className="roll-node-body">
          <span>Opened {formatDate(item.trade_open_date)}</span>
          <span>Expires {formatDate(item.expiration_date)}</span>
          <span>
            {item.contract_size} {item.contract_size === 1 ? 'contract' : 'contracts'}
          </span>
          <span>Open {formatMoney(item.premium_at_open)}</span>
          {item.trade_close_date && <span>Closed {formatDate(item.trade_close_date)}</span>}
          {item.premium_at_close !== null && <span>Close {formatMoney(item.premium_at_close)}</span>}
        </div>
      </div>
      {node.children.length > 0 && (
        <ul role="group">
          {node.children.map((c) => (
            <TreeNode key={c.item.uid} node={c} current={current} depth={depth + 1} />
          ))}
        </ul>
      )}
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
            <TreeNode key={n.item.uid} node={n} current={trade.uid} depth={1} />
          ))}
        </ul>
      )}
    </Modal>
  );
}
