/**
 * Failpoints: named places in the code where a fault test can hold a process still, to kill it there and
 * nowhere else (after FoundationDB's and TiKV's `fail` points). A kill timed from outside lands wherever
 * the process happens to be; a window of a few milliseconds (a step's work committed, the step not yet
 * marked done) is found only by luck. Armed by the environment of the process under test:
 *
 *   OJ_FAILPOINTS=rebuild.finished npm run projections -- rebuild trades
 *
 * An armed point writes `failpoint <name> reached` on stderr and then waits for ever (the test kills the
 * process). Unarmed, `failpoint` returns at once without a promise: the cost in production is a lookup
 * in an empty set. Read from `process.env` directly, not from the product's configuration: it is for
 * tests, never something an operator sets.
 */

const armed: ReadonlySet<string> = new Set(
  (process.env.OJ_FAILPOINTS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** The failpoints of the code (a name not listed here does not compile). */
export type FailpointName =
  /** A rebuild's finishing step has written everything (day records, indexes, statistics), but the version is not yet marked built. */
  'rebuild.finished';

/** Holds the process here for ever if `name` is armed (see above); otherwise returns at once. */
export function failpoint(name: FailpointName): Promise<never> | undefined {
  if (!armed.has(name)) return undefined;
  process.stderr.write(`failpoint ${name} reached\n`);
  // A timer keeps the event loop (and so the process) alive until it is killed.
  return new Promise<never>(() => setInterval(() => {}, 60_000));
}
