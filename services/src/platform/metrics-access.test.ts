import { describe, expect, it } from 'vitest';
import { METRICS_CHALLENGE, METRICS_MESSAGES, isForwarded, isLoopbackAddress, metricsRefusal } from './metrics-access.ts';

describe('who may read /metrics', () => {
  it('knows a loopback peer: 127.0.0.0/8, ::1 and IPv4 loopback mapped into IPv6; nothing else', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of [undefined, '', '10.0.0.1', '::ffff:10.0.0.1', '::', '0.0.0.0', 'fe80::1', '128.0.0.1', '::2', 'localhost']) expect(isLoopbackAddress(a), String(a)).toBe(false);
  });

  /** A request as Node's http server has it: its socket's peer, and its headers. */
  const from = (remoteAddress: string | undefined, authorization?: string, forwarded = false) =>
    ({ socket: { remoteAddress }, headers: { ...(authorization === undefined ? {} : { authorization }), ...(forwarded ? { 'x-forwarded-for': '203.0.113.9' } : {}) } }) as unknown as Parameters<typeof metricsRefusal>[0];

  it('without a token, answers this host and refuses with 403 any other peer, and a proxy on this host forwarding for someone', () => {
    expect(metricsRefusal(from('127.0.0.1'), undefined)).toBeNull();
    expect(metricsRefusal(from('192.0.2.4', 'Bearer anything-at-all-here'), undefined)).toEqual({ status: 403, headers: {}, message: METRICS_MESSAGES.hostOnly });
    expect(metricsRefusal(from(undefined), undefined)?.status).toBe(403);
    expect(metricsRefusal(from('127.0.0.1', undefined, true), undefined)).toEqual({ status: 403, headers: {}, message: METRICS_MESSAGES.hostOnly });
  });

  it('reads a proxy from Forwarded or X-Forwarded-For', () => {
    expect(isForwarded({})).toBe(false);
    expect(isForwarded({ 'x-forwarded-for': '203.0.113.9' })).toBe(true);
    expect(isForwarded({ forwarded: 'for=203.0.113.9' })).toBe(true);
  });

  it('with a token, answers its bearer from anywhere and refuses everyone else with 401, this host included', () => {
    const token = 'a-token-for-the-scraper';
    expect(metricsRefusal(from('192.0.2.4', `Bearer ${token}`, true), token)).toBeNull();
    expect(metricsRefusal(from('192.0.2.4', `bearer   ${token}`), token)).toBeNull();
    for (const authorization of [undefined, '', token, `Bearer ${token} extra`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`, 'Bearer ']) {
      expect(metricsRefusal(from('127.0.0.1', authorization), token), String(authorization)).toEqual({ status: 401, headers: { 'www-authenticate': METRICS_CHALLENGE }, message: METRICS_MESSAGES.token });
    }
  });
});
