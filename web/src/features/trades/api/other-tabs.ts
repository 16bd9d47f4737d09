import type { QueryClient } from '@tanstack/react-query';
import { sessionStore } from '@/features/auth/session-store.ts';

/** The console's tabs in one browser tell each other of a journal write on this channel. */
const CHANNEL = 'oj.journal.writes';

interface WriteMessage {
  user: string;
  /** The announcing tab: a channel hears the other channels of its own tab too, and that tab has refreshed already. */
  tab?: string;
}

/**
 * This tab's id (not `crypto.randomUUID`, which a console served over plain HTTP on a LAN address lacks).
 * Without it, a tab's own announcement reached its own listener and marked every cached answer stale (the
 * accounts, the strategies, the plan) after each of its writes, beside the refresh it had just made.
 */
const THIS_TAB = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

function openChannel(): BroadcastChannel | null {
  return typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : null;
}

/**
 * Tells the console's other tabs that the signed-in user's journal changed. Called once the read models
 * show the write (after the writing tab's own refresh), so what the other tabs fetch on hearing it is the
 * journal with the write (QA: a trade closed on one tab stayed open on the other until Refresh).
 */
export function announceJournalWrite(): void {
  const user = sessionStore.getState().user?.user_uid;
  if (!user) return;
  const channel = openChannel();
  if (!channel) return;
  channel.postMessage({ user, tab: THIS_TAB } satisfies WriteMessage);
  channel.close();
}

/**
 * Refreshes what this tab shows when another tab of the same user wrote to the journal: every cached
 * answer is marked stale and the ones on screen are fetched again (lists, histories, dashboard, calendar,
 * pulse: each derives from the journal). A write by another user (a tab signed in as someone else before
 * this one's session changed) is not this tab's business and is ignored. Returns the unsubscribe.
 */
export function refreshOnOtherTabsWrites(queryClient: QueryClient): () => void {
  const channel = openChannel();
  if (!channel) return () => {};
  channel.onmessage = (event: MessageEvent<WriteMessage>) => {
    const me = sessionStore.getState().user?.user_uid;
    if (me && event.data?.user === me && event.data.tab !== THIS_TAB) void queryClient.invalidateQueries();
  };
  return () => channel.close();
}
