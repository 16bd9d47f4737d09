import { useEffect, useRef, useState } from 'react';
import { tradeListItem, type TradeListItem } from '@oj/contracts/trade-list-item';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { dropSessionDraft, keepOnSessionEnd, peekSessionDraft, restoreShape } from '@/lib/session-drafts.ts';
import { KEPT_TRADE_ACTION } from '../utils/kept-trade-action-key.ts';

/** The one-trade forms whose input outlives a session that runs out. */
const TYPES = ['close', 'roll', 'split', 'edit'] as const;
export type KeptTradeActionType = (typeof TYPES)[number];

export const RESTORED_TRADE_ACTION = 'Your session ended before this was recorded, so nothing was saved. What you had entered is back: check it, then confirm it again.';

/**
 * The one-trade form `userId` had open when the session ran out, if any and fresh: which form, and the
 * trade as it was when the form opened (read through the contract: storage is not trusted). The form is
 * reopened on that copy, so what it sends as `expected` is what the trader saw: a trade that changed
 * meanwhile is refused with what changed, never recorded on terms the trader did not see.
 */
export function keptTradeAction(userId: string | null | undefined): { type: KeptTradeActionType; trade: TradeListItem } | undefined {
  const kept = peekSessionDraft(KEPT_TRADE_ACTION, userId);
  if (!kept || typeof kept !== 'object') return undefined;
  const { type, trade } = kept as { type?: unknown; trade?: unknown };
  if (!(TYPES as readonly unknown[]).includes(type)) return undefined;
  const parsed = tradeListItem.safeParse(trade);
  return parsed.success ? { type: type as KeptTradeActionType, trade: parsed.data } : undefined;
}

/**
 * In a one-trade dialog. While it is open, `snapshot()` (undefined while nothing was typed) is what to keep
 * if the session runs out. Opened again by the same user on the same trade (KeptTradeActionHost reopens it
 * after the sign-in), `restore` gets that back, once, and the hook answers true so the dialog says why.
 */
export function useKeptTradeAction(type: KeptTradeActionType, trade: TradeListItem, snapshot: () => Record<string, unknown> | undefined, restore: (saved: Record<string, unknown>) => void): boolean {
  const userId = useSession().user?.user_uid;
  const latest = useRef({ snapshot, restore });
  latest.current = { snapshot, restore };
  const [restored, setRestored] = useState(false);
  useEffect(
    () =>
      keepOnSessionEnd(KEPT_TRADE_ACTION, () => {
        const state = latest.current.snapshot();
        return state === undefined ? undefined : { type, trade, state };
      }),
    [type, trade],
  );
  useEffect(() => {
    const kept = peekSessionDraft(KEPT_TRADE_ACTION, userId) as { type?: unknown; trade?: { uid?: unknown }; state?: unknown } | undefined;
    if (!kept || kept.type !== type || kept.trade?.uid !== trade.uid) return;
    dropSessionDraft(KEPT_TRADE_ACTION);
    if (kept.state && typeof kept.state === 'object') latest.current.restore(kept.state as Record<string, unknown>);
    setRestored(true);
  }, [type, trade.uid, userId]);
  return restored;
}

/** A dialog's one form (useTradeForm's), as far as keeping it goes. */
interface KeptForm<V extends object> {
  values: V;
  touched: Record<string, boolean>;
  setValues: (update: (base: V) => V) => void;
  touch: (key: string) => void;
}

/**
 * useKeptTradeAction for a dialog whose input is one form: its values are kept once something was typed
 * (`typed`, by default a touched field), and come back read as the form's own shape, touched again so
 * they are kept again should the session run out once more before they are recorded.
 */
export function useKeptTradeForm<V extends object>(type: KeptTradeActionType, trade: TradeListItem, form: KeptForm<V>, typed = Object.keys(form.touched).length > 0): boolean {
  return useKeptTradeAction(
    type,
    trade,
    () => (typed ? { values: form.values } : undefined),
    (saved) => {
      form.setValues((base) => restoreShape(base, saved.values));
      form.touch('restored');
    },
  );
}
