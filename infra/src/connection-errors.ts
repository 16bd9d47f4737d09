/**
 * Errors that only say a service cannot be reached right now (refused, reset, timed out, not resolved,
 * a client's connection closed under it). Redis clients retry these by themselves, each several times a
 * second: the process's Redis monitor (services/src/platform/readiness.ts) logs the outage once when it
 * begins and once when it ends, so each connection's error handler logs these at debug level only.
 */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && CONNECTION_CODES.has(code)) return true;
  return /^Connection is closed|Stream isn't writeable|MaxRetriesPerRequestError|max retries per request/i.test(`${error.name === 'MaxRetriesPerRequestError' ? error.name : ''}${error.message}`);
}

/**
 * Ends a Redis client: QUIT when connected (pending replies first), else at once. QUIT on a client that
 * is still (re)connecting waits in its offline queue for a server that may never answer: a gateway
 * given a REDIS_URL nothing answered took its whole shutdown deadline and exited 1 (QA).
 */
export async function endRedisClient(client: { status: string; quit(): Promise<unknown>; disconnect(): void }): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}
