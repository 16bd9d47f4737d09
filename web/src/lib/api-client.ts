/**
 * The one way the console talks to the API: JSON over /api/v1 with the refresh cookie (credentials) and
 * the bearer access token. A token already past its expiry (a tab opened after a break) is refreshed before
 * the request goes out, not after a refusal. A 401 triggers exactly one token refresh and one retry of that
 * request; if the refresh fails the session is over and the configured handler signs out (to /signin).
 */
import { SUBSCRIPTION_RENEW_RESOLUTION } from '@oj/contracts/subscriptions';
import { tokenExpiry } from './jwt.ts';
import { CONSOLE_BUILD_HEADER, noteServedBuild } from './console-build.ts';
import { startupProgressOf, waitUntilStarted } from './startup.ts';
import { STARTUP_RESOLUTION, type StartupProgress } from '@oj/contracts/common';

export const API_BASE = '/api/v1';

export class ApiError extends Error {
  readonly status: number;
  /** `detail` of the error body: a string, or the list of validation issues of a 422. */
  readonly detail: unknown;
  readonly resolution: string | undefined;
  /**
   * The message is the API's own (its JSON error body said it). False for an answer that is not the API's
   * (a proxy's HTML or text page, a 502 from a load balancer): the screen shows its own text then.
   */
  readonly fromApi: boolean;

  constructor(status: number, message: string, detail?: unknown, resolution?: string, fromApi = true) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.resolution = resolution;
    this.fromApi = fromApi;
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | null | undefined>;
  headers?: Record<string, string>;
  /** Sent as the `Idempotency-Key` header, so a retried command is applied once. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** false for public endpoints (sign-in, sign-up...): no bearer token and no refresh on 401. */
  auth?: boolean;
  /** Milliseconds before the request is aborted (image uploads use 30 s). */
  timeoutMs?: number;
}

interface AuthBridge {
  getAccessToken(): string | null;
  setAccessToken(token: string): void;
  /** Called when a refresh failed: the session is over. */
  onSessionExpired(): void;
  /**
   * Called when the API refused a request for want of an active subscription (a 403 with that
   * resolution), with the token it was sent with: the plan may have lapsed after the token was issued.
   */
  onSubscriptionRefused(token: string | null): void;
}

let bridge: AuthBridge = {
  getAccessToken: () => null,
  setAccessToken: () => undefined,
  onSessionExpired: () => undefined,
  onSubscriptionRefused: () => undefined,
};

/** The auth feature plugs the session in here (lib does not depend on features). */
export function configureApiClient(next: AuthBridge): void {
  bridge = next;
}

function buildUrl(path: string, query?: RequestOptions['query']): string {
  const clean = path.startsWith('/') ? path : `/${path}`;
  let url = `${API_BASE}${clean}`;
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
    const qs = params.toString();
    if (qs) url += `${url.includes('?') ? '&' : '?'}${qs}`;
  }
  return url;
}

async function parseBody(res: Response): Promise<unknown> {
  if (res.status === 204) return undefined;
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function toApiError(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object') {
    const b = body as { message?: unknown; detail?: unknown; resolution?: unknown };
    const message = typeof b.message === 'string' ? b.message : typeof b.detail === 'string' ? b.detail : null;
    return new ApiError(status, message ?? `Request failed (${status})`, b.detail, typeof b.resolution === 'string' ? b.resolution : undefined, message !== null);
  }
  // Not the API's JSON: an HTML or text page from a proxy or a load balancer (QA: "<html><body>Internal
  // Server Error</body></html>" in an alert). Kept as the detail, never shown as the message.
  return new ApiError(status, `Request failed (${status})`, typeof body === 'string' && body ? body : undefined, undefined, false);
}

async function send(path: string, options: RequestOptions, token: string | null): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
  const timeout = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
  const signal = options.signal && timeout ? AbortSignal.any([options.signal, timeout]) : (options.signal ?? timeout);
  try {
    const res = await fetch(buildUrl(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'include',
      signal,
    });
    // The console build the gateway serves now: another than this tab's after an upgrade (console-build.ts).
    noteServedBuild(res.headers.get(CONSOLE_BUILD_HEADER));
    return res;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError' && options.signal?.aborted) throw error;
    throw new ApiError(0, 'Network error. Please try again.');
  }
}

/** What the journal's start still does, from its readiness (null: it answers, or it is down for another reason). */
async function startupNow(): Promise<StartupProgress | null> {
  const res = await send('/ready', { auth: false }, null);
  const body = (await parseBody(res)) as { status?: unknown; startup?: unknown } | undefined;
  return body?.status === 'starting' ? startupProgressOf(body.startup) : null;
}

/**
 * `send`, but a request the journal refused because it is still starting (lib/startup.ts) waits until it
 * answers and goes out again: it was refused before any route ran, so nothing was written.
 */
async function sendWhenStarted(path: string, options: RequestOptions, token: string | null): Promise<Response> {
  for (;;) {
    const res = await send(path, options, token);
    if (res.status !== 503) return res;
    const body = (await parseBody(res.clone())) as { resolution?: unknown; detail?: unknown } | undefined;
    const startup = body?.resolution === STARTUP_RESOLUTION ? startupProgressOf(body.detail) : null;
    if (!startup) return res;
    await waitUntilStarted(startup, startupNow);
    options.signal?.throwIfAborted();
  }
}

let refreshing: Promise<string | null> | null = null;

/**
 * One refresh at a time, across tabs too: refresh tokens rotate and a reused one revokes the whole
 * family, so two tabs refreshing with the same cookie would sign the user out. Under the lock, a token
 * another tab already obtained (shared through the session storage) is used instead of refreshing again.
 */
export function refreshAccessToken(staleToken: string | null): Promise<string | null> {
  if (refreshing) return refreshing;
  const run = async (): Promise<string | null> => {
    const current = bridge.getAccessToken();
    if (current && current !== staleToken) return current;
    const res = await sendWhenStarted('/users/refresh_token', { method: 'POST', auth: false }, null).catch(() => null);
    if (!res || !res.ok) return null;
    const body = (await parseBody(res)) as { access_token?: unknown } | undefined;
    const token = typeof body?.access_token === 'string' ? body.access_token : null;
    if (token) bridge.setAccessToken(token);
    return token;
  };
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  // LockManager.request resolves with the callback's result (its typing nests the promise).
  const locked = locks ? (locks.request('oj-token-refresh', run) as unknown as Promise<string | null>) : run();
  const pending: Promise<string | null> = locked.finally(() => {
    refreshing = null;
  });
  refreshing = pending;
  return pending;
}

/** A token this close to its expiry is refreshed before use: it could expire on the way. */
const EXPIRY_MARGIN_MS = 5_000;

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const useAuth = options.auth !== false;
  let token = useAuth ? bridge.getAccessToken() : null;
  if (token) {
    const expiry = tokenExpiry(token);
    // Sent as it is, it would only come back refused (QA: two 401s in the console on every load after a
    // break). Refreshed first; if the refresh fails, the request goes out with the old token and the 401
    // path below ends the session as before.
    if (expiry !== null && expiry - EXPIRY_MARGIN_MS <= Date.now()) token = (await refreshAccessToken(token)) ?? token;
  }
  let res = await sendWhenStarted(path, options, token);
  if (res.status === 401 && useAuth) {
    const fresh = await refreshAccessToken(token);
    if (!fresh) {
      bridge.onSessionExpired();
      throw toApiError(401, await parseBody(res));
    }
    res = await sendWhenStarted(path, options, fresh);
    if (res.status === 401) {
      bridge.onSessionExpired();
      throw toApiError(401, await parseBody(res));
    }
  }
  const body = await parseBody(res);
  if (!res.ok) {
    const error = toApiError(res.status, body);
    if (res.status === 403 && useAuth && error.resolution === SUBSCRIPTION_RENEW_RESOLUTION) bridge.onSubscriptionRefused(token);
    throw error;
  }
  return body as T;
}

export const api = {
  get: <T>(path: string, options: Omit<RequestOptions, 'method' | 'body'> = {}) => apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options: Omit<RequestOptions, 'method' | 'body'> = {}) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  patch: <T>(path: string, body?: unknown, options: Omit<RequestOptions, 'method' | 'body'> = {}) =>
    apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  put: <T>(path: string, body?: unknown, options: Omit<RequestOptions, 'method' | 'body'> = {}) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  delete: <T>(path: string, options: Omit<RequestOptions, 'method' | 'body'> = {}) => apiRequest<T>(path, { ...options, method: 'DELETE' }),
};

/**
 * The message to show for a failed call: the API's message, else the screen's fallback text. A 500 says
 * only that something broke ("Internal server error."): the screen's text says what did not happen.
 */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.status === 500) return fallback;
  if (error instanceof ApiError && error.status !== 0 && error.fromApi && error.message) return error.message;
  if (error instanceof ApiError && error.status === 0) return error.message;
  return fallback;
}

/** The 422 detail as a list of messages ({message} issues or plain strings). */
export function detailMessages(error: unknown): string[] {
  if (!(error instanceof ApiError)) return [];
  const d = error.detail;
  if (typeof d === 'string') return [d];
  if (Array.isArray(d)) {
    return d
      .map((x) => (typeof x === 'string' ? x : x && typeof x === 'object' && typeof (x as { message?: unknown }).message === 'string' ? (x as { message: string }).message : null))
      .filter((x): x is string => x !== null);
  }
  return [];
}
