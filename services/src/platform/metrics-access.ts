import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Why `/metrics` was not answered: the status, its headers (a 401's challenge) and the one line the scraper's operator reads. */
export interface MetricsRefusal {
  status: 401 | 403;
  headers: Record<string, string>;
  message: string;
}

export const METRICS_MESSAGES = {
  hostOnly: 'Metrics are answered to this host only. To scrape them from elsewhere, set METRICS_TOKEN and send Authorization: Bearer <token>.',
  token: 'Metrics need Authorization: Bearer <METRICS_TOKEN>.',
} as const;

/** The WWW-Authenticate challenge of a 401 from `/metrics`. */
export const METRICS_CHALLENGE = 'Bearer realm="metrics"';

/** A loopback peer: 127.0.0.0/8, ::1, or an IPv4 loopback address mapped into IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

/** Equal secrets, compared in time that does not depend on where they differ (digests of equal length). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Whether `/metrics` (the gateway's, a projector's) may be answered to `request` (Node's, as both servers
 * have it): read from the connection's own peer address, never from X-Forwarded-For, which a client
 * writes. Without METRICS_TOKEN, to this host only: a loopback peer that no proxy forwarded (a reverse
 * proxy on the same host is a loopback peer for every client it forwards). Request volumes, latencies
 * and lag by lane are a deployment's business, not the internet's. With the token, to a request carrying
 * it as a bearer token, wherever from.
 */
export function metricsRefusal(request: Pick<IncomingMessage, 'socket' | 'headers'>, token: string | undefined): MetricsRefusal | null {
  if (token === undefined) {
    return isLoopbackAddress(request.socket.remoteAddress) && !isForwarded(request.headers) ? null : { status: 403, headers: {}, message: METRICS_MESSAGES.hostOnly };
  }
  const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '')?.[1];
  return given !== undefined && sameSecret(given, token) ? null : { status: 401, headers: { 'www-authenticate': METRICS_CHALLENGE }, message: METRICS_MESSAGES.token };
}

/** Whether request headers say a proxy forwarded the request (`Forwarded`, `X-Forwarded-For`). */
export function isForwarded(headers: Record<string, string | string[] | undefined>): boolean {
  return headers.forwarded !== undefined || headers['x-forwarded-for'] !== undefined;
}
