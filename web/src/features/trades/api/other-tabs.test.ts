import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionUser } from '@oj/contracts/users';
import { sessionStore } from '@/features/auth/session-store.ts';
import { announceJournalWrite, refreshOnOtherTabsWrites } from './other-tabs.ts';

/**
 * Two tabs of one browser are two module instances; here they are one, so the "other tab" is a second
 * QueryClient listening on its own BroadcastChannel (a channel never hears its own messages, so the
 * announcing side's channel is another instance already). Node's BroadcastChannel delivers across them.
 */
const user = (user_uid: string) => ({ user_uid, first_name: 'Tab', last_name: 'Test', email: `${user_uid}@example.com`, verified: true }) as unknown as SessionUser;

/** A tab signed in as `user-a` with a list cached; `invalidated` tells whether it was marked stale. */
function signedInTab() {
  sessionStore.signIn(user('user-a'), 'token');
  const client = new QueryClient();
  client.setQueryData(['trades', 'list', 'open', {}], { pages: [], pageParams: [] });
  return { client, invalidated: () => client.getQueryState(['trades', 'list', 'open', {}])?.isInvalidated ?? false };
}

/** Lets BroadcastChannel deliver (a macrotask in Node). */
const delivered = () => new Promise((r) => setTimeout(r, 50));

describe('a journal write tells the same user’s other tabs to refresh', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
    sessionStore.clear({ broadcast: false });
  });

  it('marks every cached answer of the listening tab stale when the same user wrote', async () => {
    const { client, invalidated } = signedInTab();
    stops.push(refreshOnOtherTabsWrites(client));
    expect(invalidated()).toBe(false);

    announceJournalWrite();
    await delivered();
    expect(invalidated()).toBe(true);
  });

  it('ignores a write announced for another user, and announces nothing when signed out', async () => {
    const { client, invalidated } = signedInTab();
    stops.push(refreshOnOtherTabsWrites(client));

    // A tab still signed in as user B (this tab's session changed since) writes.
    const channel = new BroadcastChannel('oj.journal.writes');
    channel.postMessage({ user: 'user-b' });
    channel.close();
    await delivered();
    expect(invalidated()).toBe(false);

    sessionStore.clear({ broadcast: false });
    announceJournalWrite();
    await delivered();
    expect(invalidated()).toBe(false);
  });

  it('stops listening once unsubscribed', async () => {
    const { client, invalidated } = signedInTab();
    refreshOnOtherTabsWrites(client)();
    announceJournalWrite();
    await delivered();
    expect(invalidated()).toBe(false);
  });
});
