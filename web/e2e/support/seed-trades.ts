import { expect } from 'vitest';
import type { E2eServer } from './server.ts';
import type { Trader } from './trader.ts';

/** A trade of a seeded journal, in the few figures a screen's test works out by hand. */
export interface Seed {
  ticker: string;
  strategy: string;
  /** 1 credit (sold to open), 2 debit (bought to open): the strategy decides, this says which it is. */
  ot: 1 | 2;
  tod: string;
  pao: number;
  close?: { tcd: string; pac: number; ct: 1 | 2 };
}

/** The fee of every seeded open and close. */
export const SEED_FEE = 0.65;

/**
 * Adds a seeded trade through the API as the trader would (add-trade, or add-closed-trade with its
 * close): one contract, strike 100 (250 for a long call), delta 0.2, stock at 105.
 */
export async function seedTrade(server: E2eServer, t: Trader, s: Seed, options: { expiry: string; notes?: string }): Promise<void> {
  const trade_data = {
    ticker: s.ticker,
    account_uid: t.account,
    strategy_uid: s.strategy,
    strike_prices: [s.strategy === 'long-call' ? 250 : 100],
    trade_open_date: s.tod,
    expiration_date: options.expiry,
    contract_size: 1,
    premium_at_open: s.pao,
    net_fee_to_open: SEED_FEE,
    open_transaction: s.ot,
    net_delta: 0.2,
    stock_price_at_open: 105,
    cost_basis: null,
    notes: options.notes ?? '',
    ...(s.close ? { trade_close_date: s.close.tcd, premium_at_close: s.close.pac, net_fee_to_close: SEED_FEE, close_transaction: s.close.ct, status: 2 } : {}),
  };
  const res = await fetch(`${server.baseUrl}/api/v1/trades/${s.close ? 'add-closed-trade' : 'add-trade'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
    body: JSON.stringify({ trade_data, tag_data: [] }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

/**
 * Seeds a journal and waits until the read models hold every trade of it (the trades went in behind the
 * console's back, through the API, so a screen opened at once could show part of them).
 */
export async function seedJournal(server: E2eServer, t: Trader, seeds: readonly Seed[], optionsOf: (s: Seed) => { expiry: string; notes?: string }): Promise<void> {
  for (const s of seeds) await seedTrade(server, t, s, optionsOf(s));
  for (let i = 0; ; i++) {
    const res = await fetch(`${server.baseUrl}/api/v1/metrics/premium-data`, { headers: { authorization: `Bearer ${t.token}` } });
    const body = (await res.json()) as { lifetime: { opened: number } };
    if (res.ok && body.lifetime.opened === seeds.length) return;
    if (i > 300) throw new Error('the daily records never caught up with the seeded trades');
    await new Promise((r) => setTimeout(r, 200));
  }
}
