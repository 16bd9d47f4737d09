// @vitest-environment jsdom
import '@/test/dom.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { JournalAccessResponse } from '@oj/contracts/audit';
import { JournalAccessCard } from './journal-access-card.tsx';

afterEach(() => vi.unstubAllGlobals());

describe("the trader's Access to your journal card", () => {
  it("says an Admin's user lookup in words, beside support's reads, grouped by visit", async () => {
    const body: JournalAccessResponse = {
      items: [
        { at: '2026-12-06T15:00:00.000Z', by: 'Ada Admin', role: 'Admin', reason: 'Admin user lookup', view: 'profile', detail: 'looked up by e-mail' },
        { at: '2026-12-05T15:00:00.000Z', by: 'Sam Support', role: 'Support', reason: 'Ticket 42', view: 'overview', detail: 'opened the history' },
        { at: '2026-12-05T14:59:00.000Z', by: 'Sam Support', role: 'Support', reason: 'Ticket 42', view: 'timeline', detail: 'page=1' },
      ],
    };
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }));
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <JournalAccessCard />
      </QueryClientProvider>,
    );
    const visits = await screen.findAllByRole('listitem');
    expect(visits.map((v) => v.textContent?.replace(/\s+/g, ' '))).toEqual([
      expect.stringMatching(/^Ada Admin Admin .*Reason: “Admin user lookup”looked up your profile$/),
      expect.stringMatching(/^Sam Support Support .*Reason: “Ticket 42”opened your history, read your timeline \(2 reads\)$/),
    ]);
  });
});
