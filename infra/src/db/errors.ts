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

/**
 * Whether an error means the disk under the data is full: PostgreSQL's disk_full (53100), which PGlite
 * raises too, or a file write's ENOSPC (uploads, mail files). PostgreSQL rolls the statement back, so
 * nothing is half-written; once space returns the same process carries on.
 */
export function isStorageFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === '53100' || code === 'ENOSPC' || /No space left on device/.test(error.message);
}
