import { useState } from 'react';
import { useSession } from '@/features/auth/hooks/use-session.ts';
import { keptTradeAction } from '../hooks/use-kept-trade-action.ts';
import { TradeDialogHost } from './trade-dialog-host.tsx';
import type { TradeAction } from './trade-actions.ts';

/**
 * After a sign-in that followed a session running out: reopens the close, roll, split or edit form that was
 * open then, on the trade it was open on, wherever the sign-in led (the dialog takes its input back
 * itself, hooks/use-kept-trade-action.ts). Mounted by the app shell only when such a form was kept.
 */
export function KeptTradeActionHost() {
  const userId = useSession().user?.user_uid;
  const [action, setAction] = useState<TradeAction | null>(() => keptTradeAction(userId) ?? null);
  return <TradeDialogHost action={action} onClose={() => setAction(null)} />;
}
