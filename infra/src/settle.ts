/**
 * Waits for every promise to settle, then throws the first failure (in the order given) or returns
 * every value. For work that must all have ended before the caller goes on, failed or not (a rebuild's
 * lock must not be released while a transaction it started still runs): `Promise.all` rejects at the
 * first failure and leaves the rest running.
 */
export async function settleAll<P>(promises: Iterable<P>): Promise<Array<Awaited<P>>> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<Awaited<P>>).value);
}
