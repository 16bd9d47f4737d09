import { parseArgs } from 'node:util';
import { commandLineError } from '@oj/infra/command-line';
import { loadConfig, ConfigError, type Config } from '@oj/infra/config';
import { openDatabase, type Database } from '@oj/infra/db/database';
import { createEventStore } from '@oj/infra/eventstore/create';
import type { EventStore } from '@oj/infra/eventstore/port';
import { allProjections } from './catalogue.ts';
import { claimDataDir, newJournalNotice, startsNewJournal } from './runtime/data-dir-lock.ts';
import { builtVersionAdvice, describeRowChanges, type RebuildState } from '@oj/contracts/operations';
import { abandon, diff, eventsAfterVersion, rebuild, retire, rollback, switchVersion, versionToCompare, type RebuildProgress, type RuntimeDeps } from './runtime/rebuild.ts';
import { formatStatus, projectionsStatus } from './runtime/status.ts';
import { redisConnection } from './runtime/projector.ts';
import { enqueueRebuild, followRebuild, openRebuildQueue, rebuildJobId, type RebuildJobData } from './runtime/rebuild-job.ts';
import { readRegistry } from './runtime/registry.ts';
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
held by a running \`npm start\` (PGlite is single-process). A database an older release migrated is
refused unless --migrate (this release's migrations are applied first: copy the data before).`;

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

async function open(config: Config, migrateOlder: boolean): Promise<{ deps: RuntimeDeps; close(): Promise<void> }> {
  const started = startsNewJournal(config);
  const claim = config.DATABASE_URL ? null : claimDataDir(config.DATA_DIR);
  let database: Database | undefined;
  let eventStore: EventStore | undefined;
  try {
    database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATABASE_URL ? undefined : `${config.DATA_DIR}/pg`, poolSize: 4, preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
    // Same migrations as every process of the app (idempotent, locked), so the CLI works on a fresh store
    // too; a database an older release migrated is upgraded only with --migrate (QA 73).
    const { migrate } = await import('@oj/services/platform/migrations');
    await migrate(database.db, { pending: migrateOlder ? 'apply' : 'refuse' });
    eventStore = await createEventStore(config, database);
    if (started) process.stderr.write(`${newJournalNotice(config.DATA_DIR)}\n`);
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

/**
 * The operator log (`operator_actions`, services/src/operations/actions.ts) of what this command did to
 * the read models: the console logs every request to rebuild, switch, roll back, retire or abandon, and
 * so does the CLI (QA: its actions were in no log), under the operating-system user and host that ran it
 * (`CLI (<user>@<host>)`, role CLI): nobody signs in to a terminal. A refusal (the runtime's, the same
 * the console answers with a 409) is logged `refused` and anything else that stops it `failed`; a
 * rebuild's end is an entry of its own after its start, as the console writes it. Usage errors are
 * answered before the store is opened and are not logged.
 */
async function operatorLog(deps: RuntimeDeps) {
  // Imported when used, as the migrations are: the operator log is the services' table.
  const { cliActor, recordAction, recordActionOnce } = await import('@oj/services/operations/actions');
  const { AppError } = await import('@oj/services/app/errors');
  const commands = await import('@oj/services/operations/commands');
  const db = deps.database.db;
  const actor = cliActor();
  type Entry = { action: 'rebuild' | 'rebuild-user' | 'switch' | 'rollback' | 'retire' | 'abandon'; projection: string; version?: number | null; userId?: string | null };
  /** A refusal is what the console would answer with a 4xx; anything else failed. */
  const refused = (error: unknown): boolean => {
    if (error instanceof CliRefusal) return true;
    // A name the code does not have: the console answers 404 before anything runs.
    if (error instanceof Error && /^Unknown projection /.test(error.message)) return true;
    try {
      commands.mapRuntimeError(error);
    } catch (mapped) {
      return mapped instanceof AppError && mapped.statusCode < 500;
    }
    return false;
  };
  const record = (entry: Entry, outcome: 'ok' | 'refused' | 'failed', message: string) => recordAction(db, actor, { ...entry, outcome, message });
  return {
    actor,
    /** Runs one command, prints its message, and logs how it ended; a refusal is said as the console says it. */
    async act(entry: Entry, run: () => Promise<{ message: string; version?: number | null }>): Promise<void> {
      let done: { message: string; version?: number | null };
      try {
        done = await run();
      } catch (error) {
        const better = entry.action === 'rollback' || entry.action === 'abandon' ? await commands.explainGone(deps, entry.projection, entry.version ?? undefined, entry.action, error) : error;
        await record(entry, refused(better) ? 'refused' : 'failed', better instanceof Error ? better.message : String(better));
        throw better;
      }
      await record({ ...entry, version: done.version ?? entry.version ?? null }, 'ok', done.message);
      process.stdout.write(`${done.message}\n`);
    },
    /** The request to rebuild, once it has started (or ended without a report): logged `ok`, as the console logs it. */
    started: (entry: Entry, message: string) => record(entry, 'ok', message),
    /** A rebuild that never started (the lock held, an unknown projection) or failed: one entry, refused or failed. */
    stopped: (entry: Entry, error: unknown) => record(entry, refused(error) ? 'refused' : 'failed', error instanceof Error ? error.message : String(error)),
    /** How a rebuild ended, once (the console following the same job appends the same entry, by its ref). */
    async ended(state: RebuildState): Promise<void> {
      const end = commands.rebuildEnd(state);
      if (end) await recordActionOnce(db, actor, end);
    },
    switchRefusal: (name: string, version: number) => new CliRefusal(commands.alreadyLive(name, version)),
  };
}

/** A command the CLI refuses itself, as the console does (a switch to the live version): logged `refused`, exit code 1. */
class CliRefusal extends Error {}

/** A rebuild as the console's log describes it (commands.ts `rebuildEnd`). */
function rebuildState(r: { id: string; projection: string; userId?: string | undefined; switch: boolean; startedAt: string; requestedBy: string }, end: { result?: RebuildResult; error?: unknown }): RebuildState {
  const res = end.result;
  return {
    id: r.id,
    projection: r.projection,
    userId: r.userId ?? null,
    userEmail: null,
    switch: res ? res.switched : r.switch,
    version: res?.version ?? null,
    phase: end.error === undefined ? 'done' : 'failed',
    eventsDone: res?.eventsApplied ?? 0,
    eventsTotal: null,
    rate: 0,
    etaSeconds: null,
    changes: res?.changes ?? null,
    error: end.error === undefined ? null : end.error instanceof Error ? end.error.message : String(end.error),
    requestedBy: r.requestedBy,
    startedAt: r.startedAt,
    updatedAt: new Date().toISOString(),
    runner: 'in-process',
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
  migrate: { type: 'boolean' },
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
  // An e-mail is never a user id: recomputed, it read "0 events: every row was right" (QA 71).
  if (values.user?.includes('@')) {
    throw new UsageError(`--user takes a user's id, not an e-mail: \`npm run audit -- find ${values.user} --as <staff e-mail>\` gives it (the Operations page's Rebuild one user takes either)`);
  }
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
    // The store is opened only for the operator log here: the projector runs the job.
    const { deps, close } = await open(config, values.migrate === true);
    try {
      const log = await operatorLog(deps);
      const entry = { action: values.user ? ('rebuild-user' as const) : ('rebuild' as const), projection: target, userId: values.user ?? null };
      const results = await rebuildThroughJob(config.REDIS_URL, config.BULLMQ_PREFIX, { ...data, requestedBy: log.actor.email } as RebuildJobData, log, entry);
      printResults(results, values.user);
      // A projector of an older release (one that does not read the job's code versions) may have built
      // it by its own formulas (QA 75): say so, instead of leaving a version this release cannot switch to.
      let other = false;
      for (const r of values.user ? [] : results) {
        const builtBy = (await readRegistry(deps.database.db, r.projection)).find((v) => v.version === r.version)?.codeVersion ?? null;
        const code = allProjections.find((p) => p.name === r.projection)?.version ?? null;
        const advice = builtVersionAdvice(r.projection, r.version, builtBy, code);
        if (advice.otherCode) {
          process.stderr.write(`A projector of another release ran this rebuild: ${advice.text}\n`);
          other = true;
        }
      }
      if (other) return 1;
    } finally {
      await close();
    }
    return 0;
  }
  const { deps, close } = await open(config, values.migrate === true);
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
        const log = await operatorLog(deps);
        const entry = { action: values.user ? ('rebuild-user' as const) : ('rebuild' as const), projection: target, userId: values.user ?? null };
        const run = { id: rebuildJobId(target, values.user), projection: target, userId: values.user, switch: !values['no-switch'], startedAt: new Date().toISOString(), requestedBy: log.actor.email };
        const what = values.user ? `Rebuild of ${target} for user ${values.user} (CLI)` : `Rebuild of ${target} (CLI${values['no-switch'] ? ', no switch' : ''})`;
        // Logged once it has started (the rebuild lock taken): one that cannot start is one refused entry.
        let started: Promise<unknown> | null = null;
        const start = (version: number | null) => (started ??= log.started({ ...entry, version }, `${what}: started.`));
        const bar = progressBar();
        let results: RebuildResult[];
        try {
          results = await rebuild(deps, target, {
            ...(values.user ? { userId: values.user } : {}),
            ...(values['batch-size'] !== undefined ? { batchSize: count('batch-size') } : {}),
            ...(values['segment-events'] !== undefined ? { segmentEvents: count('segment-events') } : {}),
            switch: !values['no-switch'],
            onProgress: (p) => {
              bar.update(p);
              void start(p.version);
            },
          });
        } catch (error) {
          bar.done();
          if (started) {
            await started;
            await log.ended(rebuildState(run, { error }));
          } else await log.stopped(entry, error);
          throw error;
        }
        bar.done();
        await start(results[0]?.version ?? null);
        for (const r of results) await log.ended(rebuildState({ ...run, projection: target === 'all' ? r.projection : target }, { result: r }));
        printResults(results, values.user);
        return 0;
      }
      case 'switch': {
        const v = Number(arg);
        if (!Number.isInteger(v)) throw new UsageError('switch needs a version number');
        const target = needName();
        const log = await operatorLog(deps);
        await log.act({ action: 'switch', projection: target, version: v }, async () => {
          // Refused as the console refuses it (QA: "is live", exit 0, where the API answers 409).
          if ((await readRegistry(deps.database.db, target)).some((r) => r.version === v && r.status === 'live')) throw log.switchRefusal(target, v);
          await switchVersion(deps, target, v);
          return { message: `${target} v${v} is live` };
        });
        return 0;
      }
      case 'rollback': {
        const target = needName();
        const log = await operatorLog(deps);
        await log.act({ action: 'rollback', projection: target, version: version ?? null }, async () => {
          const r = await rollback(deps, target, version !== undefined ? { to: version } : {});
          return { message: `${target}: v${r.to} is live again (v${r.from ?? '-'} retired, kept until retire)`, version: r.to };
        });
        return 0;
      }
      case 'diff': {
        const name = needName();
        const tables = await diff(deps, name, version);
        // What the compared version has not seen, as the console says it (QA: rows "only in live" read as
        // changed formulas when the build had simply stopped where it was built, under steady writes).
        const other = versionToCompare(await readRegistry(deps.database.db, name), version);
        const code = allProjections.find((p) => p.name === name);
        const behind = other && code && other.status !== 'live' ? await eventsAfterVersion(deps, code, other) : null;
        if (behind) {
          const note = `v${other!.version} stops where it was built: ${behind} event${behind === 1 ? '' : 's'} came after it; rows they touch differ from live until it is caught up (a switch catches up first).`;
          if (values.json) process.stderr.write(`${note}\n`);
          else process.stdout.write(`${note}\n`);
        }
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
        const target = needName();
        const log = await operatorLog(deps);
        await log.act({ action: 'retire', projection: target, version: version ?? null }, async () => {
          const dropped = await retire(deps, target, version);
          // One version dropped names it, so a later refusal naming it can say it was retired for good.
          return { message: dropped.length ? `${target}: dropped v${dropped.join(', v')}` : `${target}: no retired version`, version: dropped.length === 1 ? dropped[0]! : (version ?? null) };
        });
        return 0;
      }
      case 'abandon': {
        const target = needName();
        const log = await operatorLog(deps);
        await log.act({ action: 'abandon', projection: target, version: version ?? null }, async () => {
          const v = await abandon(deps, target, version);
          return { message: v === null ? `${target}: nothing building` : `${target}: dropped building v${v}`, version: v };
        });
        return 0;
      }
      default:
        throw new UsageError(`Unknown command ${command}`);
    }
  } finally {
    await close();
  }
}

/** A per-user recompute that read no event: a valid request (it clears rows left for the id), or a mistyped id. */
const NO_EVENTS_OF_USER = '. No event in the journal is this user\'s: if you expected some, check the id (`npm run audit -- find <e-mail>` gives it)';

function printResults(results: RebuildResult[], userId: string | undefined): void {
  for (const r of results) {
    process.stdout.write(
      userId
        ? `${r.projection} v${r.version}: recomputed user ${userId} (${r.eventsApplied} events)${r.changes ? `: ${describeRowChanges(r.changes)}` : ''}${r.eventsApplied === 0 ? NO_EVENTS_OF_USER : ''}\n`
        : `${r.projection} v${r.version}: ${r.eventsApplied} events applied${r.resumedFrom ? ` (resumed from ${r.resumedFrom})` : ''}, ${r.switched ? 'now live' : 'left building (diff, then switch)'}\n`,
    );
  }
}

/**
 * Services mode: the rebuild is a `projector-rebuild` job run by a projector process (so it survives
 * this terminal, and a killed projector's rebuild is resumed by the next one); this process follows it.
 */
async function rebuildThroughJob(
  redisUrl: string,
  prefix: string,
  data: RebuildJobData,
  log: Awaited<ReturnType<typeof operatorLog>>,
  entry: Parameters<Awaited<ReturnType<typeof operatorLog>>['started']>[0],
): Promise<RebuildResult[]> {
  // A test hook, not configuration: how long to wait for a projector before warning that none runs.
  const warnMs = Number(process.env.REBUILD_PICKUP_WARN_MS ?? 5000);
  const rq = await openRebuildQueue(redisConnection(redisUrl), prefix);
  try {
    let enqueued: Awaited<ReturnType<typeof enqueueRebuild>>;
    try {
      enqueued = await enqueueRebuild(rq.queue, data, allProjections);
    } catch (error) {
      await log.stopped(entry, error);
      throw error;
    }
    const { job, existing } = enqueued;
    await log.started(entry, `Rebuild of ${data.target}${data.userId ? ` for user ${data.userId}` : ''} (CLI): ${existing ? 'already queued or running, following it' : 'queued'}.`);
    // The job's run as the console names it (rebuilds.ts `toState`): whoever sees its end first logs it.
    const run = { id: job.id ?? rebuildJobId(data.target, data.userId), projection: data.target, userId: data.userId, switch: data.switch !== false, startedAt: new Date(job.timestamp).toISOString(), requestedBy: (job.data as { requestedBy?: string }).requestedBy ?? log.actor.email };
    process.stderr.write(
      existing
        ? `A rebuild with job id ${job.id} is already queued or running: following it (its own options apply).\n`
        : `Queued rebuild job ${job.id}; the projector runs it (Ctrl-C stops following, not the rebuild).\n`,
    );
    const bar = progressBar();
    try {
      const results = await followRebuild(job, rq.events, {
        idleWarnMs: warnMs,
        onProgress: (p) => bar.update(p),
        onNotPickedUp: () =>
          process.stderr.write(
            `!! No projector picked up the rebuild within ${warnMs / 1000}s: no projector is running? Start \`npm run projector\`, ` +
              'or pass --here to run it in this process. The job stays queued; still waiting.\n',
          ),
      }).catch(async (error: unknown) => {
        await log.ended(rebuildState(run, { error }));
        throw error;
      });
      await log.ended(rebuildState(run, { result: results[0]! }));
      return results;
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
  else if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
