import type { TradeListItem } from '@oj/contracts/trade-list-item';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { EmptyState } from '@/components/ui/empty-state.tsx';
import { Modal } from '@/components/ui/modal.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { errorMessage } from '@/lib/api-client.ts';
import { formatDate, formatMoney } from '@/lib/format.ts';
import { useRollHistory, type RollHistoryItem, type RollHistorySplit } from '../api/get-roll-history.ts';
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

export type Node =
  | { kind: 'trade'; item: RollHistoryItem; children: Node[] }
  | { kind: 'split'; split: RollHistorySplit; children: Node[] }
  | { kind: 'position'; entered: EnteredPosition; children: Node[] };

/** A trade, or a two-leg trade that was split (it left the lists; its legs hang under it). */
type Entry = { kind: 'trade'; item: RollHistoryItem } | { kind: 'split'; split: RollHistorySplit };
const fieldsOf = (e: Entry) => (e.kind === 'trade' ? e.item : e.split);

/**
 * The chain as a tree. A position that a partial close or partial roll cut into parts is drawn as the
 * trader entered it (all its contracts and premium), its parts side by side beneath it: the part that
 * was closed (or rolled) beside the remainder, never one nested under the other. A trade's children
 * are the trades rolled from it; a split trade's, its legs.
 */
export function rollTree(items: readonly RollHistoryItem[], splits: readonly RollHistorySplit[] = []): Node[] {
  const entries: Entry[] = [...items.map((item): Entry => ({ kind: 'trade', item })), ...splits.map((split): Entry => ({ kind: 'split', split }))];
  const byUid = new Map(entries.map((e) => [fieldsOf(e).uid, e]));
  const order = new Map(entries.map((e, n) => [fieldsOf(e).uid, n]));
  const partOf = (e: Entry) => {
    const p = fieldsOf(e).partial_of_uid;
    return p && byUid.has(p) ? p : null;
  };
  // A remainder's part-of chain leads to the trade the position was entered as.
  const positionRoot = (e: Entry): string => {
    let cur = e;
    const seen = new Set<string>();
    for (let p = partOf(cur); p !== null && !seen.has(p); p = partOf(cur)) {
      seen.add(fieldsOf(cur).uid);
      cur = byUid.get(p) ?? cur;
    }
    return fieldsOf(cur).uid;
  };
  // A leg hangs under its split; anything else under the trade it was rolled from.
  const previousOf = (e: Entry): string | null => {
    const split = e.kind === 'trade' ? e.item.split_of_uid : null;
    if (split && byUid.has(split)) return split;
    const from = fieldsOf(e).rolled_from_uid;
    return from && byUid.has(from) ? from : null;
  };
  const parts = new Map<string, Entry[]>();
  const under = new Map<string | null, Entry[]>();
  for (const e of entries) {
    if (partOf(e)) {
      const root = positionRoot(e);
      parts.set(root, [...(parts.get(root) ?? []), e]);
      continue;
    }
    const parent = previousOf(e);
    under.set(parent, [...(under.get(parent) ?? []), e]);
  }
  // Contracts still open at or below an entry by its parts and legs (a roll starts a position of its own).
  const openBelow = (e: Entry, seen: Set<string>): number => {
    if (e.kind === 'trade' && e.item.status === 1) return e.item.contract_size;
    if (e.kind !== 'split') return 0;
    return (under.get(e.split.uid) ?? []).filter((l) => !seen.has(fieldsOf(l).uid)).reduce((n, l) => n + openOfPosition(l, new Set([...seen, fieldsOf(l).uid])), 0);
  };
  const openOfPosition = (root: Entry, seen: Set<string>): number =>
    [root, ...(parts.get(fieldsOf(root).uid) ?? [])].reduce((n, p) => n + openBelow(p, seen), 0);
  const byOpen = (a: Entry, b: Entry) =>
    fieldsOf(a).trade_open_date.localeCompare(fieldsOf(b).trade_open_date) || (order.get(fieldsOf(a).uid) ?? 0) - (order.get(fieldsOf(b).uid) ?? 0);
  const entryNode = (e: Entry, seen: Set<string>): Node => {
    const uid = fieldsOf(e).uid;
    const children = positions(uid, new Set([...seen, uid]));
    return e.kind === 'trade' ? { kind: 'trade', item: e.item, children } : { kind: 'split', split: e.split, children };
  };
  const positions = (parent: string | null, seen: Set<string>): Node[] =>
    (under.get(parent) ?? [])
      .filter((e) => !seen.has(fieldsOf(e).uid))
      .sort(byOpen)
      .map((root) => {
        const rest = (parts.get(fieldsOf(root).uid) ?? []).filter((e) => !seen.has(fieldsOf(e).uid)).sort(byOpen);
        if (rest.length === 0) return entryNode(root, seen);
        const all = [root, ...rest];
        const first = fieldsOf(root);
        const entered: EnteredPosition = {
          uid: first.uid,
          strike_prices: first.strike_prices,
          trade_open_date: first.trade_open_date,
          expiration_date: first.expiration_date,
          contract_size: all.reduce((n, e) => n + fieldsOf(e).contract_size, 0),
          premium_at_open: Math.round(all.reduce((n, e) => n + fieldsOf(e).premium_at_open, 0) * 100) / 100,
          open_contracts: openOfPosition(root, seen),
        };
        return { kind: 'position', entered, children: all.map((e) => entryNode(e, seen)) };
      });
  return positions(null, new Set());
}

const nodeKey = (n: Node) => (n.kind === 'trade' ? n.item.uid : n.kind === 'split' ? `split-${n.split.uid}` : `entered-${n.entered.uid}`);

const contracts = (n: number) => `${n} ${n === 1 ? 'contract' : 'contracts'}`;

/**
 * Deepest indentation a branch gets (QA 74). A position rolled 60 times nested 60 levels deep and its
 * cards shrank to nothing; now a chain stays at one indentation and only a real branch indents, at most
 * this many levels, so a card keeps about 240 px even in a 390 px phone's dialog.
 */
export const MAX_ROLL_INDENT = 3;

/**
 * How a node hangs from its parent: rolled from a trade (the chain goes on, numbered), a part of a
 * position cut by a partial close or roll, or a leg of a split trade.
 */
type Link = 'root' | 'roll' | 'part' | 'leg';
const linkOf = (parent: Node): Link => (parent.kind === 'trade' ? 'roll' : parent.kind === 'position' ? 'part' : 'leg');

/**
 * One node. The DOM keeps each roll inside the trade it was rolled from (aria-level is the lineage depth
 * a screen reader announces), but the indentation is drawn apart from the nesting: a node's only child
 * (the next roll of a chain) is drawn below it at the same indentation, and the children of a node with
 * two or more (a position's parts, a split's legs) one level further in, up to `MAX_ROLL_INDENT`.
 */
function TreeNode({ node, current, depth, indent, roll, link }: { node: Node; current: string; depth: number; indent: number; roll: number; link: Link }) {
  const branches = node.children.length > 1;
  const childIndent = branches ? Math.min(indent + 1, MAX_ROLL_INDENT) : indent;
  const children = node.children.length > 0 && (
    <ul role="group" className={!branches ? 'roll-chain' : childIndent > indent ? 'roll-branch' : 'roll-capped'}>
      {node.children.map((c) => {
        const childLink = linkOf(node);
        return <TreeNode key={nodeKey(c)} node={c} current={current} depth={depth + 1} indent={childIndent} roll={childLink === 'roll' ? roll + 1 : roll} link={childLink} />;
      })}
    </ul>
  );
  // The connector above a rolled-to card (its number is in the card's head, read when scrolled to it).
  const rolledTo = link === 'roll' && (
    <div className="roll-link">
      <span className="roll-link-arrow" aria-hidden="true">
        ↓
      </span>
      Rolled to
    </div>
  );
  const rollNumber = link === 'roll' && <span className="roll-number">Roll {roll}</span>;
  const common = { role: 'treeitem', 'aria-level': depth, 'data-indent': indent, 'data-roll': roll } as const;
  if (node.kind === 'position') {
    const { entered } = node;
    return (
      <li {...common} aria-expanded data-testid="roll-position">
        {rolledTo}
        <div className="roll-node roll-node-position">
          <div className="roll-node-head">
            <span className="roll-node-title">
              <strong>{formatStrikes(entered.strike_prices)}</strong>
              {rollNumber}
            </span>
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
  if (node.kind === 'split') {
    const { split } = node;
    return (
      <li {...common} aria-expanded data-testid="roll-split">
        {rolledTo}
        <div className="roll-node roll-node-position">
          <div className="roll-node-head">
            <span className="roll-node-title">
              <strong>{formatStrikes(split.strike_prices)}</strong>
              {rollNumber}
            </span>
            <span className="roll-status roll-status-entered">Split</span>
          </div>
          <div className="roll-node-body">
            <span>Opened {formatDate(split.trade_open_date)}</span>
            <span>Expires {formatDate(split.expiration_date)}</span>
            <span>{contracts(split.contract_size)}</span>
            <span>Open {formatMoney(split.premium_at_open)}</span>
            {split.split_date && <span>Split {formatDate(split.split_date)}</span>}
          </div>
        </div>
        {children}
      </li>
    );
  }
  const { item } = node;
  return (
    <li {...common} aria-expanded={node.children.length > 0 ? true : undefined} aria-current={item.uid === current ? 'true' : undefined} data-testid="roll-trade">
      {rolledTo}
      <div className={`roll-node${item.uid === current ? ' roll-node-current' : ''}`}>
        <div className="roll-node-head">
          <span className="roll-node-title">
            <strong>{formatStrikes(item.strike_prices)}</strong>
            {rollNumber}
          </span>
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

/** The lineage's tree as drawn in the dialog; `current` is the trade the dialog was opened for. */
export function RollTreeView({ tree, current }: { tree: readonly Node[]; current: string }) {
  return (
    <ul className="roll-tree" role="tree" aria-label="Roll history">
      {tree.map((n) => (
        <TreeNode key={nodeKey(n)} node={n} current={current} depth={1} indent={0} roll={0} link="root" />
      ))}
    </ul>
  );
}

/** Roll History: static backdrop, Retry on error (part 1 §2, §8). */
export function RollHistoryDialog({ trade, onClose }: { trade: TradeListItem; onClose: () => void }) {
  const history = useRollHistory(trade.uid);
  const tree = history.data ? rollTree(history.data.items, history.data.splits) : [];
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
        <RollTreeView tree={tree} current={trade.uid} />
      )}
    </Modal>
  );
}
