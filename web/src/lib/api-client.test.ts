import { afterEach, describe, expect, it, vi } from 'vitest';
import { SUBSCRIPTION_RENEW_RESOLUTION } from '@oj/contracts/subscriptions';
import { api, ApiError, configureApiClient, errorMessage } from './api-client.ts';

afterEach(() => vi.unstubAllGlobals());

const answer = (status: number, body: string, type: string) => vi.stubGlobal('fetch', async () => new Response(body, { status, headers: { 'content-type': type } }));
const failure = (p: Promise<unknown>) => p.then(() => expect.unreachable(), (e: unknown) => e as ApiError);

describe('errors of the API and of what stands in front of it', () => {
  it("shows the API's own message", async () => {
    answer(409, JSON.stringify({ statusCode: 409, message: 'This trade is already closed.' }), 'application/json');
    const e = await failure(api.post('/trades/close/x', {}, { auth: false }));
    expect([e.status, e.fromApi, errorMessage(e, 'Failed to close trade. Please try again.')]).toEqual([409, true, 'This trade is already closed.']);
  });

  it("never shows a proxy's HTML or text page: the screen's own text instead, the page kept as the detail", async () => {
    answer(502, '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>', 'text/html');
    const e = await failure(api.get('/trades/status/open', { auth: false }));
    expect([e.status, e.fromApi, errorMessage(e, 'Failed to fetch trades.')]).toEqual([502, false, 'Failed to fetch trades.']);
    expect(String(e.detail)).toContain('nginx');
    answer(500, 'Internal Server Error', 'text/plain');
    expect(errorMessage(await failure(api.get('/users/current_user', { auth: false })), 'Failed to fetch profile.')).toBe('Failed to fetch profile.');
    // The API's own 500 says only that something broke: the screen's text says what did not happen.
    answer(500, JSON.stringify({ message: 'Internal server error.', detail: 'Internal server error.' }), 'application/json');
    expect(errorMessage(await failure(api.post('/trades/add-trade', {}, { auth: false })), 'Error uploading trade. Please try again.')).toBe('Error uploading trade. Please try again.');
    // A 503 from the API says why and when to come back: it is shown.
    answer(503, JSON.stringify({ message: 'The server is busy. Try again in a moment.' }), 'application/json');
    expect(errorMessage(await failure(api.get('/trades/status/open', { auth: false })), 'Failed to fetch trades.')).toBe('The server is busy. Try again in a moment.');
    // A JSON body without a message is no message either.
    answer(503, JSON.stringify({ statusCode: 503 }), 'application/json');
    expect(errorMessage(await failure(api.get('/metrics/premium-data', { auth: false })), 'Failed to fetch premium data')).toBe('Failed to fetch premium data');
  });
});

describe('a refusal for want of an active subscription', () => {
  const bridge = (token: string) => {
    const refused: (string | null)[] = [];
    configureApiClient({ getAccessToken: () => token, setAccessToken: () => undefined, onSessionExpired: () => undefined, onSubscriptionRefused: (t) => refused.push(t) });
    return refused;
  };
  afterEach(() => configureApiClient({ getAccessToken: () => null, setAccessToken: () => undefined, onSessionExpired: () => undefined, onSubscriptionRefused: () => undefined }));

  it('tells the session, with the token the request carried, and still fails the request with the API message', async () => {
    const refused = bridge('header.payload.sig');
    answer(403, JSON.stringify({ message: 'Your subscription has expired, please renew', resolution: SUBSCRIPTION_RENEW_RESOLUTION }), 'application/json');
    const e = await failure(api.get('/trades/status/closed'));
    expect([e.status, e.message]).toEqual([403, 'Your subscription has expired, please renew']);
    expect(refused).toEqual(['header.payload.sig']);
  });

  it('says nothing of any other 403, nor of a public request', async () => {
    const refused = bridge('header.payload.sig');
    answer(403, JSON.stringify({ message: 'Forbidden.', resolution: 'Ask an administrator.' }), 'application/json');
    await failure(api.get('/operations/projections'));
    answer(403, JSON.stringify({ message: 'Your subscription has expired, please renew', resolution: SUBSCRIPTION_RENEW_RESOLUTION }), 'application/json');
    await failure(api.get('/trades/status/closed', { auth: false }));
    expect(refused).toEqual([]);
  });
});
