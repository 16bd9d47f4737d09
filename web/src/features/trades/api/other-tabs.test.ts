import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionUser } from '@oj/contracts/users';
import { sessionStore } from '@/features/auth/session-store.ts';
import { announceJournalWrite, refreshOnOtherTabsWrites } from './other-tabs.ts';

/**
 * Two tabs of one browser are two module instances; here they are one, so another tab's announcement is
 * posted on a channel of the test's own, as that tab's module would post it (with its own tab id), and
 * `announceJournalWrite` is this tab's own. Node's BroadcastChannel delivers across channel instances, as
 * a browser does within one tab.
 */
const user = (user_uid: string) => ({ user_uid, first_name: 'Tab', last_name: 'Test', email: `${user_uid}@example.com`, verified: true }) as unknown as SessionUser;

/** A tab signed in as `user-a` with a list cached; `invalidated` tells whether it was marked stale. */
function signedInTab() {
  sessionStore.signIn(user('user-a'), 'token');
  const client = new QueryClient();
  client.setQueryData(['trades', 'list', 'open', {}], { pages: [], pageParams: [] });
  return { client, invalidated: () => client.getQueryState(['trades', 'list', 'open', {}])?.isInvalidated ?? false };
}

/** What another tab's `announceJournalWrite` posts. */
function otherTabWrites(user: string) {
  const channel = new BroadcastChannel('oj.journal.writes');
  channel.postMessage({ user, tab: 'another-tab' });
  channel.close();
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

    otherTabWrites('user-a');
    await delivered();
    expect(invalidated()).toBe(true);
  });

  it("does not mark the writing tab's own answers stale: it refreshed what the write changed already", async () => {
    const { client, invalidated } = signedInTab();
    client.setQueryData(['accounts'], []);
    stops.push(refreshOnOtherTabsWrites(client));
    announceJournalWrite();
    await delivered();
    expect(invalidated()).toBe(false);
    expect(client.getQueryState(['accounts'])?.isInvalidated).toBe(false);
    // A message of a release before tab ids (no tab) is another tab's.
    const channel = new BroadcastChannel('oj.journal.writes');
    channel.postMessage({ user: 'user-a' });
    channel.close();
    await delivered();
    expect(invalidated()).toBe(true);
  });

  it('ignores a write announced for another user, and announces nothing when signed out', async () => {
    const { client, invalidated } = signedInTab();
    stops.push(refreshOnOtherTabsWrites(client));

    // A tab still signed in as user B (this tab's session changed since) writes.
    otherTabWrites('user-b');
    await delivered();
    expect(invalidated()).toBe(false);

    // Signed out, this tab announces nothing (another tab's channel would hear it).
    const heard: unknown[] = [];
    const otherTab = new BroadcastChannel('oj.journal.writes');
    otherTab.onmessage = (event: MessageEvent) => heard.push(event.data);
    announceJournalWrite();
    await delivered();
    expect(heard).toHaveLength(1);
    sessionStore.clear({ broadcast: false });
    announceJournalWrite();
    await delivered();
    otherTab.close();
    expect(heard).toHaveLength(1);
  });

  it('stops listening once unsubscribed', async () => {
    const { client, invalidated } = signedInTab();
    refreshOnOtherTabsWrites(client)();
    otherTabWrites('user-a');
    await delivered();
    expect(invalidated()).toBe(false);
  });
});
