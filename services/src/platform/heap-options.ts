import type { Logger } from 'pino';

/**
 * V8's heap settings for the service processes, by process. They are given on the command line wherever
 * one is started: `npm run gateway` and `npm run projector`, the compose file and the Dockerfile (a test
 * holds them all to these lists), and tests and benches, which run the npm scripts' commands
 * (spawnService). With GATEWAY_PROCESSES > 1 the cluster's workers inherit the primary's (cluster.fork
 * passes on process.execArgv).
 *
 * Why (docs/operations.md, "Gateway and projector memory"; the measurements in docs/performance.md,
 * "Soak"): both processes hold little (about 70 MiB of live objects in the gateway, 30 MiB in the
 * projector) and promote objects that die in the old generation (lineage states, parsed premium days,
 * query results, lane batches). On a machine with memory to spare V8 lets the heap grow to several times
 * the live size before a full collection, and keeps the pages it grew to: resident memory kept rising for
 * minutes under a steady load with no leak (the gateway +39% after the first minute of a 10-minute soak;
 * the projector +19.8%, its heap at 207 to 249 MiB for 30 to 36 MiB live).
 * - `--max-semi-space-size=16`: a young generation of 2 x 16 MiB instead of V8's 2 x 64 MiB on this
 *   machine; V8 also adds one semi-space to the old generation's allowance. Both processes.
 * - `--heap-growing-percent=20` (gateway) and `=50` (projector): a full collection when the old generation
 *   reaches 1.2 (1.5) times what the last one left (V8 picks 1.1 to 4 times, by its own speed
 *   estimates). No cap: a burst only brings the next collection sooner. The projector's is milder: at 20
 *   its extra full collections doubled the live lag's p99 in November (BullMQ, 200 events/s: 40 to 55 ms
 *   against 21 to 27 ms); at 50 (3 December, AMD EPYC) the lag did not move (BullMQ 200/s p99 25.4 to
 *   33.5 ms with it, 32.7 to 38.3 without) and its RSS in a 10-minute soak held at 185 to 196 MiB from
 *   the first minute (267 to 291 MiB without, reached after one to three minutes; on an Intel Xeon that
 *   climb came after the first minute and broke the soak's 10%, and with it a Xeon grew 8.7 and 8.6%).
 * Not set: `--min-semi-space-size=16` for the projector (its young generation at its cap from the start):
 *   measured and not kept (docs/performance.md, "Soak", 3 December): its RSS still rose 13 and 28% after
 *   a soak's first minute with it (28 and 39% without), and where it settles is the same.
 * A larger heap (`--max-old-space-size`) is not set: V8's default limit stays.
 */
export const SERVICE_NODE_OPTIONS = {
  gateway: ['--max-semi-space-size=16', '--heap-growing-percent=20'],
  projector: ['--max-semi-space-size=16', '--heap-growing-percent=50'],
} as const satisfies Record<string, readonly string[]>;

export type Service = keyof typeof SERVICE_NODE_OPTIONS;

/** A V8 option's name as V8 reads it (`--max_semi_space_size` and `--max-semi-space-size` are one option). */
const optionName = (arg: string): string => arg.split('=')[0]!.replace(/_/g, '-');

/**
 * The heap settings a service process was started without, by name: its command line's options
 * (`process.execArgv`) and NODE_OPTIONS, which may carry `--max-semi-space-size` but not V8's other
 * options. Another value for a setting counts as set: an operator may choose it.
 */
export function missingNodeOptions(service: Service, execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)].map(optionName));
  return SERVICE_NODE_OPTIONS[service].filter((o) => !given.has(optionName(o)));
}

/**
 * Warns, at start-up, when the process was started some other way than its npm script (a hand-written
 * service unit, say) and lacks some of its options: it runs, but its resident memory grows for minutes
 * under load.
 */
export function warnOfMissingNodeOptions(service: Service, logger: Logger): void {
  const missing = missingNodeOptions(service, process.execArgv, process.env.NODE_OPTIONS);
  if (missing.length === 0) return;
  logger.warn(
    { missing, expected: SERVICE_NODE_OPTIONS[service] },
    `${service} started without Node options ${missing.join(' ')} (npm run ${service} gives them; see docs/operations.md, "Gateway and projector memory")`,
  );
}
