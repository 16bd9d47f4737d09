// @vitest-environment jsdom
import '@/test/dom.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen } from '@testing-library/react';
import { STARTUP_RESOLUTION, startupPercent, type StartupProgress } from '@oj/contracts/common';
import { api } from '@/lib/api-client.ts';
import { STARTUP_POLL_MS } from '@/lib/startup.ts';
import { StartupScreen } from './startup-screen.tsx';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/**
 * While the journal starts (an upgrade's rebuild, a restored journal's catch-up) the API refuses every
 * request with its progress. The console neither fails the screen nor signs anybody out: the request
 * waits, the start-up screen says how far it got, and the request goes out again once the journal answers.
 */
describe('the journal starting', () => {
  it('holds the request, shows the progress from readiness, and carries on with the answer once started', async () => {
    vi.useFakeTimers();
    const rebuilding: StartupProgress = { phase: 'rebuilding', projection: 'trades', done: 2000, total: 8000, retrying: false };
    const catching: StartupProgress = { phase: 'catching-up', done: 30, total: 40, retrying: false };
    const asked: string[] = [];
    let ready: Response = json(503, { status: 'starting', startup: catching, dependencies: {}, down: [] });
    let trades: Response = json(503, { message: 'Options Journal is rebuilding…', detail: rebuilding, resolution: STARTUP_RESOLUTION });
    vi.stubGlobal('fetch', async (url: string) => {
      asked.push(url.replace(/^.*\/api\/v1/, ''));
      return url.endsWith('/ready') ? ready.clone() : trades.clone();
    });
    // The console's page is #root; the screen is drawn beside it and makes it inert while shown (QA 78:
    // Tab reached the sign-in form behind).
    const root = document.body.appendChild(Object.assign(document.createElement('div'), { id: 'root' }));
    const behind = root.appendChild(Object.assign(document.createElement('button'), { textContent: 'Sign in' }));
    behind.focus();
    render(<StartupScreen />, { container: root.appendChild(document.createElement('div')) });
    const answer = api.get<{ items: number[] }>('/trades/status/open', { auth: false });

    // The refusal's own progress first: 2,000 of 8,000 is 25%.
    await act(async () => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByRole('dialog', { name: 'Getting your journal ready' })).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe('Options Journal is recomputing its figures for this release: 25% (2,000 of 8,000 events).');
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('25');
    expect(root.hasAttribute('inert')).toBe(true);
    expect(root.contains(screen.getByRole('dialog'))).toBe(false);
    expect(document.activeElement?.className).toBe('startup-card');

    // Then readiness, asked every second: 30 of 40 is 75%.
    await act(async () => vi.advanceTimersByTimeAsync(STARTUP_POLL_MS));
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('75');
    expect(screen.getByRole('status').textContent).toContain('up to date with your records: 75% (30 of 40 events)');

    // Started: the request goes out again and resolves with the answer; the screen goes.
    ready = json(200, { status: 'ready', dependencies: {}, down: [] });
    trades = json(200, { items: [1, 2] });
    await act(async () => vi.advanceTimersByTimeAsync(STARTUP_POLL_MS));
    await expect(answer).resolves.toEqual({ items: [1, 2] });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(root.hasAttribute('inert')).toBe(false);
    expect(document.activeElement).toBe(behind);
    root.remove();
    expect(asked).toEqual(['/trades/status/open', '/ready', '/ready', '/trades/status/open']);
  });

  it('passes any other 503 on as an error (the server busy is not the start)', async () => {
    vi.stubGlobal('fetch', async () => json(503, { message: 'The journal is busy right now. Nothing was changed. Please try again in a moment.' }));
    render(<StartupScreen />);
    await expect(api.get('/trades/status/open', { auth: false })).rejects.toMatchObject({ status: 503 });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('counts the share done in whole percent, 99 at most until over, none before the count is known', () => {
    expect(startupPercent({ phase: 'catching-up', done: 1, total: 3, retrying: false })).toBe(33);
    expect(startupPercent({ phase: 'catching-up', done: 9999, total: 10000, retrying: false })).toBe(99);
    expect(startupPercent({ phase: 'catching-up', done: 0, total: 0, retrying: false })).toBe(100);
    expect(startupPercent({ phase: 'rebuilding', done: 5, total: null, retrying: false })).toBeNull();
    expect(startupPercent({ phase: 'preparing', done: 0, total: null, retrying: false })).toBeNull();
  });
});
