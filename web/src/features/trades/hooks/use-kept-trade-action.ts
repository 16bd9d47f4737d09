import { tradeListItem, type TradeListItem } from '@oj/contracts/trade-list-item';
import { useKeptInput } from '@/features/auth/hooks/use-kept-input.ts';
import { peekSessionDraft, restoreShape } from '@/lib/session-drafts.ts';
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
  return useKeptInput(
    KEPT_TRADE_ACTION,
    () => {
      const state = snapshot();
      return state === undefined ? undefined : { type, trade, state };
    },
    (kept) => {
      const { state } = kept as { state?: unknown };
      if (state && typeof state === 'object') restore(state as Record<string, unknown>);
    },
    // Each dialog is keyed by its trade (TradeDialogHost): what was kept for another form or trade stays.
    (kept) => {
      const { type: keptType, trade: keptTrade } = (kept ?? {}) as { type?: unknown; trade?: { uid?: unknown } };
      return keptType === type && keptTrade?.uid === trade.uid;
    },
  );
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
