// @vitest-environment jsdom
import '@/test/dom.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router';
import { VERIFY_SUCCESS_MESSAGE, type SessionUser } from '@oj/contracts/users';
import { sessionStore } from '../session-store.ts';
import { VerifyRoute } from './verify-route.tsx';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const user = (uac: boolean): SessionUser => ({
  uid: 'u1',
  user_uid: 'u1',
  name: 'Zoë Ångström',
  email: 'zoe@example.com',
  role: 'User',
  subs_status: 2,
  uac,
  tac: true,
  agreed_to_terms: true,
  has_trade_account: true,
  avatar: null,
});

/** Records the API paths asked; the verification answers as it would for a link (`status`). */
function stubFetch(status: number): string[] {
  const asked: string[] = [];
  vi.stubGlobal('fetch', async (url: string) => {
    asked.push(String(url).replace(/^.*\/api\/v1/, ''));
    return status === 200 ? json(200, { message: VERIFY_SUCCESS_MESSAGE }) : json(status, { message: 'Invalid or expired token.' });
  });
  return asked;
}

function renderAt(path: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/" element={<p>Home page</p>} />
          <Route path="/users/account-verify" element={<VerifyRoute />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
  sessionStore.clear({ broadcast: false });
});

describe('/users/account-verify', () => {
  it('sends no verification request for a signed-in verified user who opens a used link again, and goes to the homepage (QA: a 400 in the console)', async () => {
    sessionStore.signIn(user(true), 'header.payload.sig');
    const asked = stubFetch(400);
    renderAt('/users/account-verify?token=used-token');
    expect(await screen.findByText('Home page')).toBeTruthy();
    // Let any query that was started settle before looking at what was asked.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked.filter((p) => p.includes('/users/verify/'))).toEqual([]);
  });

  it('sends the verification request once for a signed-out visitor and shows the answer', async () => {
    const asked = stubFetch(200);
    renderAt('/users/account-verify?token=fresh-token');
    expect(await screen.findByRole('heading', { name: VERIFY_SUCCESS_MESSAGE })).toBeTruthy();
    expect(asked.filter((p) => p.includes('/users/verify/'))).toEqual(['/users/verify/fresh-token']);
    expect(screen.queryByText('Home page')).toBeNull();
  });
});
