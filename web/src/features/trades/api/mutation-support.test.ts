import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client.ts';
import { sendOnce } from './mutation-support.ts';

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
