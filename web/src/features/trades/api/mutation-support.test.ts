import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client.ts';
import { REREAD_AFTER_REFUSAL_MS, refreshListsAfterRefusal, sendOnce } from './mutation-support.ts';
import { tradeKeys } from './trade-keys.ts';

/** Sends through `sendOnce`, recording the key; `outcome` decides the answer. */
async function attempt(keys: string[], command: string, contents: unknown, outcome: 'ok' | 'lost' | 'refused' | 'server-error') {
  return sendOnce(command, contents, async (key) => {
    keys.push(key);
    if (outcome === 'lost') throw new ApiError(0, 'Network error. Please try again.');
    if (outcome === 'server-error') throw new ApiError(502, 'Bad Gateway');
    if (outcome === 'refused') throw new ApiError(409, 'This trade is already closed.');
    return 'done';
  }).catch(() => 'failed');
}

describe('sendOnce: one Idempotency-Key per request until it has an answer', () => {
  it('reuses the key after a lost answer or a 5xx, so the server applies the command once', async () => {
    const keys: string[] = [];
    const trade = { ticker: 'QLOST', premium_at_open: 150 };
    expect(await attempt(keys, 'add-trade', trade, 'lost')).toBe('failed');
    expect(await attempt(keys, 'add-trade', { ...trade }, 'server-error')).toBe('failed');
    expect(await attempt(keys, 'add-trade', trade, 'ok')).toBe('done');
    expect(new Set(keys).size).toBe(1);
  });

  it('spends the key once answered: the same contents again (a second identical trade) are a new request', async () => {
    const keys: string[] = [];
    await attempt(keys, 'add-trade', { ticker: 'TWICE' }, 'ok');
    await attempt(keys, 'add-trade', { ticker: 'TWICE' }, 'ok');
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('a refusal is an answer; other contents or another command are other requests', async () => {
    const keys: string[] = [];
    await attempt(keys, 'close-trade', { uid: 'a', contract_size: 1 }, 'refused');
    await attempt(keys, 'close-trade', { uid: 'a', contract_size: 1 }, 'lost');
    await attempt(keys, 'close-trade', { uid: 'a', contract_size: 2 }, 'lost');
    await attempt(keys, 'roll-trade', { uid: 'a', contract_size: 1 }, 'lost');
    expect(new Set(keys).size).toBe(4);
  });
});

describe('refreshListsAfterRefusal', () => {
  const listed = () => {
    const client = new QueryClient();
    client.setQueryData(tradeKeys.list('open', {}, 50), { pages: [], pageParams: [] });
    return { client, stale: () => client.getQueryState(tradeKeys.list('open', {}, 50))?.isInvalidated ?? false };
  };

  it('reads the lists again after a refusal for what the trade is now (404, 409, 422): the row was stale', () => {
    for (const status of [404, 409, 422]) {
      const { client, stale } = listed();
      refreshListsAfterRefusal(client, new ApiError(status, 'This trade is already closed.'));
      expect([status, stale()]).toEqual([status, true]);
    }
  });

  it('reads them once more a moment later, when the projectors run apart from the gateway and lag behind the refusal', () => {
    vi.useFakeTimers();
    try {
      const { client, stale } = listed();
      refreshListsAfterRefusal(client, new ApiError(409, 'This trade was changed elsewhere since you opened it (Premium).'));
      // Read again at once: the answer (a projector behind) leaves the list fresh, and as it was.
      client.setQueryData(tradeKeys.list('open', {}, 50), { pages: [], pageParams: [] });
      vi.advanceTimersByTime(REREAD_AFTER_REFUSAL_MS - 1);
      expect(stale()).toBe(false);
      vi.advanceTimersByTime(1);
      expect(stale()).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves them after a lost answer or a 5xx, which say nothing of the trade', () => {
    for (const error of [new ApiError(0, 'Network error. Please try again.'), new ApiError(503, 'Busy'), new Error('x')]) {
      const { client, stale } = listed();
      refreshListsAfterRefusal(client, error);
      expect(stale()).toBe(false);
    }
  });
});
