// @vitest-environment jsdom
import '@/test/dom.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { TimelinePanel } from './timeline-panel.tsx';

/**
 * The console's router is a data router: a change of the address is a navigation that ends a moment after
 * the click that asked for it (later still on a busy machine, or with a route that loads). Here every
 * navigation after the first waits until the test lets it through, so what is typed in that moment is
 * typed for certain, not by luck of timing.
 */
function renderTimeline(path: string) {
  // jsdom's AbortSignal is not Node's, which Node's Request (what the router builds for a loader) insists on.
  const NodeRequest = globalThis.Request;
  vi.stubGlobal(
    'Request',
    class extends NodeRequest {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(input, init && { ...init, signal: undefined });
      }
    },
  );
  const held: Array<() => void> = [];
  let first = true;
  const router = createMemoryRouter(
    [
      {
        path: '/support/users/:uid',
        loader: () => {
          if (first) {
            first = false;
            return null;
          }
          return new Promise<null>((resolve) => held.push(() => resolve(null)));
        },
        element: <TimelinePanel uid="u1" reason="Ticket 42" onAsOf={() => undefined} />,
        // Shown while the first loader runs (nothing here; without it the router warns on every test).
        HydrateFallback: () => null,
      },
    ],
    { initialEntries: [path] },
  );
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  const release = async () => {
    await act(async () => {
      for (const go of held.splice(0)) go();
      await new Promise((r) => setTimeout(r, 0));
    });
  };
  return { router, release };
}

const tradeField = () => screen.getByPlaceholderText('trade uid') as HTMLInputElement;
const lineageField = () => screen.getByPlaceholderText('lineage id') as HTMLInputElement;

afterEach(() => vi.unstubAllGlobals());

describe('the timeline filters', () => {
  it('keeps what is typed right after Clear, while the cleared address is still on its way (carried: the fields were set back)', async () => {
    // The timeline's read itself is not what this is about: it is refused, and the form stays.
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ message: 'no' }), { status: 503, headers: { 'content-type': 'application/json' } }));
    const { router, release } = renderTimeline('/support/users/u1?trade=t-old&lineage=l-old');
    expect(await screen.findByDisplayValue('t-old')).toBe(tradeField());

    fireEvent.click(screen.getByRole('button', { name: 'Clear' }));
    // Cleared at once, before the address has changed: the support agent sees the empty form they asked for.
    expect(tradeField().value).toBe('');
    expect(lineageField().value).toBe('');
    fireEvent.change(tradeField(), { target: { value: 't-new' } });

    await release();
    expect(router.state.location.search).toBe('');
    expect(tradeField().value).toBe('t-new');
    expect(lineageField().value).toBe('');
  });

  it('keeps what is typed right after Apply, and shows what was applied as the address reads it', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ message: 'no' }), { status: 503, headers: { 'content-type': 'application/json' } }));
    const { router, release } = renderTimeline('/support/users/u1');
    await screen.findByRole('button', { name: 'Apply' });

    fireEvent.change(tradeField(), { target: { value: '  t-applied  ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    // The address holds the uid without the spaces around it; so does the field, at once.
    expect(tradeField().value).toBe('t-applied');
    fireEvent.change(lineageField(), { target: { value: 'l-typed' } });

    await release();
    expect(new URLSearchParams(router.state.location.search).get('trade')).toBe('t-applied');
    expect(tradeField().value).toBe('t-applied');
    expect(lineageField().value).toBe('l-typed');
  });

  it('still follows the address when it changes from elsewhere (Back)', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ message: 'no' }), { status: 503, headers: { 'content-type': 'application/json' } }));
    const { router, release } = renderTimeline('/support/users/u1?trade=t-one');
    await screen.findByDisplayValue('t-one');
    fireEvent.change(tradeField(), { target: { value: 't-two' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
    await release();
    expect(tradeField().value).toBe('t-two');

    await act(async () => {
      void router.navigate(-1);
      await new Promise((r) => setTimeout(r, 0));
    });
    await release();
    expect(new URLSearchParams(router.state.location.search).get('trade')).toBe('t-one');
    expect(tradeField().value).toBe('t-one');
  });

  it('keeps what is typed but not applied when a page is turned, forward and back', async () => {
    const entry = (n: number) => ({
      position: `${String(n).padStart(20, '0')}-${String(n).padStart(20, '0')}`,
      event_id: `e${n}`,
      stream_id: 'trade-t1',
      lineage_id: 'l1',
      revision: n,
      recorded_at: '2026-12-01T15:00:00.000Z',
      business_date: '2026-12-01',
      actor: { id: 'u1', role: 'user', label: 'the user' },
      command: null,
      request_id: `r${n}`,
      idempotency_key: null,
      type: 'TradeEdited',
      schema_version: 1,
      trades: ['t1'],
      sentence: `Edit ${n}`,
    });
    // 120 events: each page's read answers the 50 after its cursor (the first 50 without one).
    vi.stubGlobal('fetch', async (url: string) => {
      const cursor = new URL(String(url), 'http://x').searchParams.get('cursor');
      const from = cursor ? Number(cursor.slice(0, 20)) : 0;
      const items = Array.from({ length: Math.min(50, 120 - from) }, (_, i) => entry(from + i + 1));
      const body = { items, next_cursor: from + items.length < 120 ? items.at(-1)!.position : null, total: 120, offset: from };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    const { router, release } = renderTimeline('/support/users/u1');
    await screen.findByText('Edit 1');
    fireEvent.change(tradeField(), { target: { value: 't-typed' } });

    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await release();
    await screen.findByText('Edit 51');
    expect(router.state.location.search).toContain('cursor=');
    expect(tradeField().value).toBe('t-typed');

    fireEvent.click(screen.getByRole('button', { name: 'Previous page' }));
    await release();
    await screen.findByText('Edit 1');
    expect(tradeField().value).toBe('t-typed');
  });
});
