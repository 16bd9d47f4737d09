import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** Why `/metrics` was not answered: the status and the one line the scraper's operator reads. */
export interface MetricsRefusal {
  status: 401 | 403;
  message: string;
}

export const METRICS_MESSAGES = {
  hostOnly: 'Metrics are answered to this host only. To scrape them from elsewhere, set METRICS_TOKEN and send Authorization: Bearer <token>.',
  token: 'Metrics need Authorization: Bearer <METRICS_TOKEN>.',
} as const;

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

/** What of a request decides whether `/metrics` may be answered. */
export interface MetricsRequest {
  /** The connection's own peer address (never X-Forwarded-For, which a client writes). */
  peerAddress: string | undefined;
  authorization: string | undefined;
  /** Whether the request carries `Forwarded` or `X-Forwarded-For`: it came through a proxy. */
  forwarded: boolean;
}

/**
 * Whether `/metrics` (the gateway's, a projector's) may be answered. Without METRICS_TOKEN, to this host
 * only: a loopback peer that no proxy forwarded (a reverse proxy on the same host is a loopback peer for
 * every client it forwards). Request volumes, latencies and lag by lane are a deployment's business, not
 * the internet's. With the token, to a request carrying it as a bearer token, wherever from.
 */
export function metricsRefusal({ peerAddress, authorization, forwarded }: MetricsRequest, token: string | undefined): MetricsRefusal | null {
  if (token === undefined) return isLoopbackAddress(peerAddress) && !forwarded ? null : { status: 403, message: METRICS_MESSAGES.hostOnly };
  const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '')?.[1];
  return given !== undefined && sameSecret(given, token) ? null : { status: 401, message: METRICS_MESSAGES.token };
}

/** Whether request headers say a proxy forwarded the request (`Forwarded`, `X-Forwarded-For`). */
export function isForwarded(headers: Record<string, string | string[] | undefined>): boolean {
  return headers.forwarded !== undefined || headers['x-forwarded-for'] !== undefined;
}

/** The WWW-Authenticate challenge of a 401 from `/metrics`. */
export const METRICS_CHALLENGE = 'Bearer realm="metrics"';
