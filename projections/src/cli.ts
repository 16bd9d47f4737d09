import { parseArgs } from 'node:util';
import { commandLineError } from '@oj/infra/command-line';
import { loadConfig, ConfigError, type Config } from '@oj/infra/config';
import { openDatabase, type Database } from '@oj/infra/db/database';
import { createEventStore } from '@oj/infra/eventstore/create';
import type { EventStore } from '@oj/infra/eventstore/port';
import { allProjections } from './catalogue.ts';
import { claimDataDir, DataDirBusyError } from './runtime/data-dir-lock.ts';
import { describeRowChanges } from '@oj/contracts/operations';
import { abandon, diff, rebuild, retire, rollback, switchVersion, type RebuildProgress, type RuntimeDeps } from './runtime/rebuild.ts';
import { formatStatus, projectionsStatus } from './runtime/status.ts';
import { redisConnection } from './runtime/projector.ts';
import { enqueueRebuild, followRebuild, openRebuildQueue, type RebuildJobData } from './runtime/rebuild-job.ts';
import type { RebuildResult } from './runtime/rebuild.ts';

const usage = `Usage: npm run projections -- <command>

  status [--json]                       versions, statuses, checkpoints, rebuild progress, lag
  rebuild <name|all> [--user <id>]      build the next version beside the live one, catch up, switch
          [--batch-size <n>] [--no-switch]   with REDIS_URL: a job run by the projector process,
          [--segment-events <n>]            followed here; --here runs it in this process instead
          [--here]                          (--segment-events: events folded in memory per write, default 500,000)
  switch <name> <version>               make a built (or retired) version live, in one transaction
  rollback <name> [--version <n>]       switch back to the most recently retired version; with
                                        --version, only if that is still v<n> (else refused, nothing changes)
  diff <name> [--version <n>]           rows and totals that differ between live and building (or <n>)
  retire <name> [--version <n>]         drop retired versions' tables (no rollback to them after)
  abandon <name> [--version <n>]        drop the building version; with --version, only if v<n> is still it

Works in both modes: DATABASE_URL (services) or the embedded PGlite under DATA_DIR, which must not be
held by a running \`npm start\` (PGlite is single-process).`;

function progressBar(): { update(p: RebuildProgress): void; done(): void } {
  const tty = process.stderr.isTTY;
  let lastLine = 0;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const eta = (s: number | null) => (s === null ? '?' : s < 60 ? `${Math.ceil(s)}s` : `${Math.floor(s / 60)}m${String(Math.ceil(s % 60)).padStart(2, '0')}s`);
  return {
    update(p) {
      const total = p.eventsTotal;
      const ratio = total ? Math.min(1, p.eventsDone / total) : 0;
      const width = 30;
      const bar = total ? `[${'#'.repeat(Math.round(ratio * width)).padEnd(width, '-')}] ${(ratio * 100).toFixed(0).padStart(3)}% ` : '';
      const line = `${p.projection} v${p.version} ${p.phase} ${bar}${fmt(p.eventsDone)}/${total === null ? '?' : fmt(total)} events  ${fmt(p.rate)} ev/s  ETA ${eta(p.etaSeconds)}`;
      if (tty) process.stderr.write(`\r\u001b[2K${line}`);
      else if (Date.now() - lastLine > 2000 || p.phase !== 'building') {
        process.stderr.write(`${line}\n`);
        lastLine = Date.now();
      }
    },
    done() {
      if (tty) process.stderr.write('\n');
    },
  };
}

async function open(config: Config): Promise<{ deps: RuntimeDeps; close(): Promise<void> }> {
  const claim = config.DATABASE_URL ? null : claimDataDir(config.DATA_DIR);
  let database: Database | undefined;
  let eventStore: EventStore | undefined;
  try {
    database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATABASE_URL ? undefined : `${config.DATA_DIR}/pg`, poolSize: 4, preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
    // Same migrations as every process of the app (idempotent, locked), so the CLI works on a fresh store too.
    const { migrate } = await import('@oj/services/platform/migrations');
    await migrate(database.db);
    eventStore = await createEventStore(config, database);
  } catch (error) {
    await database?.close();
    claim?.release();
    throw error;
  }
  const db = database;
  const store = eventStore;
  return {
    deps: { database: db, eventStore: store, projections: allProjections, lanes: config.PROJECTOR_LANES },
    async close() {
      await store.close();
      await db.close();
      claim?.release();
    },
  };
}

const options = {
  user: { type: 'string' },
  'batch-size': { type: 'string' },
  'segment-events': { type: 'string' },
  'no-switch': { type: 'boolean' },
  here: { type: 'boolean' },
  version: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError(commandLineError(error));
  }
  const { values, positionals } = parsed;
  const [command, name, arg] = positionals;
  if (values.help || command === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (!command) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const needName = () => {
    if (!name) throw new UsageError(`${command} needs a projection name`);
    return name;
  };
  if (!['status', 'rebuild', 'switch', 'rollback', 'diff', 'retire', 'abandon'].includes(command)) throw new UsageError(`Unknown command ${command}`);
  const version = values.version !== undefined ? Number(values.version) : undefined;
  if (version !== undefined && (!Number.isInteger(version) || version < 1)) throw new UsageError('--version needs a whole version number');
  const count = (flag: 'batch-size' | 'segment-events') => {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} needs a whole number of events above 0`);
    return n;
  };
  // A bad count is a usage error, answered before the store is opened (an embedded one is migrated first).
  for (const flag of ['batch-size', 'segment-events'] as const) if (values[flag] !== undefined) count(flag);
  const config = loadConfig();
  if (command === 'rebuild' && config.REDIS_URL && !values.here) {
    const target = needName();
    if (target !== 'all' && !allProjections.some((p) => p.name === target)) {
      throw new Error(`Unknown projection ${target}. Known: ${allProjections.map((x) => x.name).join(', ') || '(none)'}`);
    }
    const data: RebuildJobData = {
      target,
      ...(values.user ? { userId: values.user } : {}),
      ...(values['batch-size'] !== undefined ? { batchSize: count('batch-size') } : {}),
      ...(values['segment-events'] !== undefined ? { segmentEvents: count('segment-events') } : {}),
      switch: !values['no-switch'],
    };
    printResults(await rebuildThroughJob(config.REDIS_URL, config.BULLMQ_PREFIX, data), values.user);
    return 0;
  }
  const { deps, close } = await open(config);
  try {
    switch (command) {
      case 'status': {
        const status = await projectionsStatus(deps, config.mode.projector);
        if (values.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
        else process.stdout.write(`${formatStatus(status)}\n`);
        return 0;
      }
      case 'rebuild': {
        const target = needName();
        const bar = progressBar();
        const results = await rebuild(deps, target, {
          ...(values.user ? { userId: values.user } : {}),
          ...(values['batch-size'] !== undefined ? { batchSize: count('batch-size') } : {}),
          ...(values['segment-events'] !== undefined ? { segmentEvents: count('segment-events') } : {}),
          switch: !values['no-switch'],
          onProgress: (p) => bar.update(p),
        });
        bar.done();
        printResults(results, values.user);
        return 0;
      }
      case 'switch': {
        const v = Number(arg);
        if (!Number.isInteger(v)) throw new UsageError('switch needs a version number');
        await switchVersion(deps, needName(), v);
        process.stdout.write(`${name} v${v} is live\n`);
        return 0;
      }
      case 'rollback': {
        const r = await rollback(deps, needName(), version !== undefined ? { to: version } : {});
        process.stdout.write(`${name}: v${r.to} is live again (v${r.from ?? '-'} retired, kept until retire)\n`);
        return 0;
      }
      case 'diff': {
        const tables = await diff(deps, needName(), version);
        if (values.json) process.stdout.write(`${JSON.stringify(tables, null, 2)}\n`);
        else
          for (const t of tables) {
            const same = !t.onlyInLive && !t.onlyInOther && !t.totals.length && !t.categories.length && !t.shapeChanged;
            process.stdout.write(`${t.table}: ${t.live} (${t.rowsLive} rows) vs ${t.other} (${t.rowsOther} rows)${same ? ': identical' : ''}\n`);
            if (t.shapeChanged) process.stdout.write(`  shape changed: ${t.shapeChanged}\n`);
            if (t.onlyInLive || t.onlyInOther) process.stdout.write(`  rows only in live: ${t.onlyInLive}, only in the other: ${t.onlyInOther} (--json for samples)\n`);
            for (const x of t.totals) process.stdout.write(`  total ${x.column}: ${x.live} -> ${x.other}\n`);
            // A code column is not an amount: its rows per value, not a sum.
            const perValue = (c: Record<string, number>) => Object.entries(c).map(([v, n]) => `${v}=${n}`).join(' ') || '(no rows)';
            for (const x of t.categories) process.stdout.write(`  rows per ${x.column}: ${perValue(x.live)} -> ${perValue(x.other)}\n`);
          }
        return 0;
      }
      case 'retire': {
        const dropped = await retire(deps, needName(), version);
        process.stdout.write(dropped.length ? `${name}: dropped v${dropped.join(', v')}\n` : `${name}: no retired version\n`);
        return 0;
      }
      case 'abandon': {
        const v = await abandon(deps, needName(), version);
        process.stdout.write(v === null ? `${name}: nothing building\n` : `${name}: dropped building v${v}\n`);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command ${command}`);
    }
  } finally {
    await close();
  }
}

function printResults(results: RebuildResult[], userId: string | undefined): void {
  for (const r of results) {
    process.stdout.write(
      userId
        ? `${r.projection} v${r.version}: recomputed user ${userId} (${r.eventsApplied} events)${r.changes ? `: ${describeRowChanges(r.changes)}` : ''}\n`
        : `${r.projection} v${r.version}: ${r.eventsApplied} events applied${r.resumedFrom ? ` (resumed from ${r.resumedFrom})` : ''}, ${r.switched ? 'now live' : 'left building (diff, then switch)'}\n`,
    );
  }
}

/**
 * Services mode: the rebuild is a `projector-rebuild` job run by a projector process (so it survives
 * this terminal, and a killed projector's rebuild is resumed by the next one); this process follows it.
 */
async function rebuildThroughJob(redisUrl: string, prefix: string, data: RebuildJobData): Promise<RebuildResult[]> {
  // A test hook, not configuration: how long to wait for a projector before warning that none runs.
  const warnMs = Number(process.env.REBUILD_PICKUP_WARN_MS ?? 5000);
  const rq = await openRebuildQueue(redisConnection(redisUrl), prefix);
  try {
    const { job, existing } = await enqueueRebuild(rq.queue, data);
    process.stderr.write(
      existing
        ? `A rebuild with job id ${job.id} is already queued or running: following it (its own options apply).\n`
        : `Queued rebuild job ${job.id}; the projector runs it (Ctrl-C stops following, not the rebuild).\n`,
    );
    const bar = progressBar();
    try {
      return await followRebuild(job, rq.events, {
        idleWarnMs: warnMs,
        onProgress: (p) => bar.update(p),
        onNotPickedUp: () =>
          process.stderr.write(
            `!! No projector picked up the rebuild within ${warnMs / 1000}s: no projector is running? Start \`npm run projector\`, ` +
              'or pass --here to run it in this process. The job stays queued; still waiting.\n',
          ),
      });
    } finally {
      bar.done();
    }
  } finally {
    await rq.close();
  }
}

class UsageError extends Error {}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) process.stderr.write(`${error.message}\n\n${usage}\n`);
  else if (error instanceof DataDirBusyError || error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
