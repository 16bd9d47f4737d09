/**
 * V8's heap settings for a gateway process. They are given on the command line wherever a gateway is
 * started: `npm run gateway`, the compose file and the Dockerfile (a test holds the three to this list),
 * and tests and benches, which run the npm script's command (spawnService). With GATEWAY_PROCESSES > 1
 * the cluster's workers inherit the primary's (cluster.fork passes on process.execArgv).
 *
 * Why (docs/operations.md, "Gateway memory"; the measurements in docs/performance.md, "Soak"): the
 * gateway holds about 70 MiB of live objects and promotes about 1.7 MiB a second that die in the old
 * generation (lineage states, parsed premium days, query results). On a machine with memory to spare
 * V8 lets the old generation grow to two to four times the live size before a full collection, plus
 * the young generation's capacity, and keeps the pages it grew to: resident memory kept rising for
 * minutes under a steady load (+39% after the first minute in a 10-minute soak) with no leak.
 * - `--heap-growing-percent=20`: a full collection when the old generation reaches 1.2 times what the
 *   last one left (V8 picks 1.1 to 4 times, by its own speed estimates). No cap: a burst only brings
 *   the next collection sooner.
 * - `--max-semi-space-size=16`: a young generation of 2 x 16 MiB instead of V8's 2 x 64 MiB on this
 *   machine; V8 also adds one semi-space to the old generation's allowance.
 * A larger heap (`--max-old-space-size`) is not set: V8's default limit stays.
 */
export const GATEWAY_NODE_OPTIONS = ['--max-semi-space-size=16', '--heap-growing-percent=20'] as const;

/** A V8 option's name as V8 reads it (`--max_semi_space_size` and `--max-semi-space-size` are one option). */
const optionName = (arg: string): string => arg.split('=')[0]!.replace(/_/g, '-');

/**
 * The gateway's heap settings this process was started without, by name: its command line's options
 * (`process.execArgv`) and NODE_OPTIONS, which may carry `--max-semi-space-size` but not V8's other
 * options. Another value for a setting counts as set: an operator may choose it.
 */
export function missingGatewayNodeOptions(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)].map(optionName));
  return GATEWAY_NODE_OPTIONS.filter((o) => !given.has(optionName(o)));
}
