/**
 * Whether an error means the database connection was lost or refused (a restart, a failover, a killed
 * backend, a network partition), as opposed to a query the database refused. Such a failure says
 * nothing about the request: the transaction did not commit, or (a connection lost during COMMIT) its
 * outcome is unknown, which a retry under the same Idempotency-Key settles. The gateway answers 503.
 */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // SQLSTATE class 08 (connection exception), admin/crash shutdown, cannot connect now.
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code)) return true;
  }
  return /^Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/.test(error.message);
}
