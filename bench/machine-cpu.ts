import { readFileSync } from 'node:fs';

/**
 * The whole machine's CPU over a stretch of a benchmark, from Linux's `/proc/stat`: how much of it was
 * user, system, idle and **steal** (time a virtual machine was ready to run and its host gave the core
 * to someone else). On a small VM a run's tail latency moves with the steal (`docs/performance.md`,
 * 2 December): a figure without it cannot say whether a miss was the code's or the host's.
 */
export interface CpuShares {
  /** Percent of all cores' time, each rounded to 0.1. */
  user: number;
  system: number;
  idle: number;
  iowait: number;
  steal: number;
}

type Ticks = number[];

/** The aggregate `cpu` line's counters, or null where there is no `/proc/stat` (not Linux). */
function readTicks(): Ticks | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [label, ...fields] = line.trim().split(/\s+/);
    return label === 'cpu' ? fields.map(Number) : null;
  } catch {
    return null;
  }
}

/** Starts measuring; the returned function gives the shares since, or null where they cannot be read. */
export function machineCpu(): () => CpuShares | null {
  const before = readTicks();
  return () => {
    const after = readTicks();
    if (!before || !after) return null;
    // user nice system idle iowait irq softirq steal (guest time is inside user already)
    const d = (i: number) => (after[i] ?? 0) - (before[i] ?? 0);
    const total = [0, 1, 2, 3, 4, 5, 6, 7].reduce((n, i) => n + d(i), 0);
    if (total <= 0) return null;
    const pct = (ticks: number) => Math.round((1000 * ticks) / total) / 10;
    return { user: pct(d(0) + d(1)), system: pct(d(2) + d(5) + d(6)), idle: pct(d(3)), iowait: pct(d(4)), steal: pct(d(7)) };
  };
}
