import { rm, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { commandLineError } from '@oj/infra/command-line';
import { asOfQuery, auditReason, logPosition, timelineQuery } from '@oj/contracts/audit';
import { createCliRuntime } from '../platform/runtime.ts';
import { findUserByEmail, principalOfUser } from '../identity/users.ts';
import { AppError } from '../app/errors.ts';
import { describeQuery, recordAccess } from './access-log.ts';
import { asOf, eventDiff, exportHistory, findUsers, overview, targetUser, timeline, verify, type AuditContext } from './queries.ts';

export const usage = `Usage: npm run audit -- <command> --as <staff e-mail> [options]
  find <e-mail | username | uid>
  overview <uid | e-mail> --reason "<why>"
  timeline <uid | e-mail> --reason "<why>" [--cursor <position>] [--backward] [--limit N] [--trade T] [--lineage L] [--type TradeRolled] [--from YYYY-MM-DD] [--to YYYY-MM-DD]
  as-of    <uid | e-mail> --reason "<why>" [--event <position> | --date YYYY-MM-DD] [--formulas V] [--trade <uid or short id>] [--full]
  diff     <uid | e-mail> <position> --reason "<why>"
  verify   <uid | e-mail> --reason "<why>" [--full]  (exit code 3 when the read models differ, 4 when they differ
           while some of the user's events are still being projected: verify again in a moment)
  export   <uid | e-mail> --reason "<why>" --format jsonl|csv --out <file>
--as names a Support or Admin user: the reads are recorded in the access log under that user, as in the console
(a read refused, e.g. an event not in the user's history, shows nothing and is not recorded).
--full replays from the user's first event instead of the last stored replay state (docs/audit.md).
Prints JSON. Uses the same DATABASE_URL / DATA_DIR / EVENTSTORE_URL as the server; a database an older release
migrated is refused unless --migrate (this release's migrations are applied first: copy the data before).`;

/** The audit replay without a browser: the same functions as the routes, the same access log. */
export async function runAuditCli(argv: string[], env: Record<string, string | undefined> = process.env, out = console): Promise<number> {
  const options = {
    as: { type: 'string' }, reason: { type: 'string' }, cursor: { type: 'string' }, backward: { type: 'boolean' }, limit: { type: 'string' },
    trade: { type: 'string' }, lineage: { type: 'string' }, type: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' },
    event: { type: 'string' }, date: { type: 'string' }, formulas: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' }, full: { type: 'boolean' },
    migrate: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  } as const;
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    out.error(`${commandLineError(error)}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, target, position] = positionals;
  if (values.help || command === 'help') {
    out.log(usage);
    return 0;
  }
  if (!command || !target || !values.as || !['find', 'overview', 'timeline', 'as-of', 'diff', 'verify', 'export'].includes(command)) {
    out.error(usage);
    return 2;
  }
  // What is wrong first, in one line, then the usage (QA: the usage alone for `--format xml`).
  if (command === 'export') {
    const wrong =
      values.format === undefined ? 'export needs --format jsonl or --format csv.'
      : values.format !== 'jsonl' && values.format !== 'csv' ? `export writes --format jsonl or csv, not "${values.format}".`
      : !values.out ? 'export needs --out <file>: the file to write.'
      : null;
    if (wrong) {
      out.error(`${wrong}\n${usage}`);
      return 2;
    }
  }
  // One line, as `npm run projections` says it, not a stack trace (QA).
  const runtime = await createCliRuntime(env, (message) => out.error(message), { migrate: values.migrate === true });
  if (!runtime) return 1;
  try {
    const deps = runtime.deps;
    const staff = await findUserByEmail(deps.database.db, values.as);
    if (!staff || (staff.role !== 'Support' && staff.role !== 'Admin')) {
      out.error(`${values.as} is not a Support or Admin user.`);
      return 1;
    }
    const ctx: AuditContext = { db: deps.database.db, eventStore: deps.eventStore, clock: deps.clock, logger: deps.logger };
    const print = (x: unknown) => out.log(JSON.stringify(x, null, 2));
    if (command === 'find') {
      print(await findUsers(ctx.db, target));
      return 0;
    }
    const reason = auditReason.safeParse(values.reason);
    if (!reason.success) {
      out.error(reason.error.issues[0]?.message);
      return 2;
    }
    // An e-mail names the user as well as the id (QA 73: `verify <e-mail>` answered "No user matches." for one who exists).
    let uid = target;
    if (target.includes('@')) {
      const byEmail = await findUserByEmail(ctx.db, target);
      if (!byEmail) {
        out.error(`No user with e-mail ${target}.`);
        return 1;
      }
      uid = byEmail.uid;
    }
    const user = await targetUser(ctx.db, uid);
    // Each read is computed first and recorded once it has an answer, before that answer is printed: a
    // refused read (no such event, an unregistered formulas version, an unknown trade) is not recorded,
    // and a read that could not be recorded is not printed (docs/audit.md). Details as the routes write them.
    const record = (view: Parameters<typeof recordAccess>[1]['view'], detail: string, digest?: string) =>
      recordAccess(deps, { principal: principalOfUser(staff, deps.clock.now()), target: user, reason: reason.data, view, detail: `${detail} (CLI)`, requestId: `cli-${randomUUID()}`, digest: digest ?? null });
    switch (command) {
      case 'overview': {
        const answer = await overview(ctx, user);
        await record('overview', 'opened the history');
        print(answer);
        return 0;
      }
      case 'timeline': {
        const q = timelineQuery.parse({
          reason: reason.data, direction: values.backward ? 'backward' : 'forward',
          ...Object.fromEntries(['cursor', 'limit', 'trade', 'lineage', 'type', 'from', 'to'].map((k) => [k, values[k as keyof typeof values]]).filter(([, v]) => v !== undefined)),
        });
        const answer = await timeline(ctx, user.uid, q);
        await record('timeline', describeQuery(q));
        print(answer);
        return 0;
      }
      case 'as-of': {
        const q = asOfQuery.parse({ reason: reason.data, event: values.event, date: values.date, formulas: values.formulas, trade: values.trade, full: values.full ? 'true' : 'false' });
        const answer = await asOf(ctx, user.uid, q);
        // QA saw `event= date= (CLI)` for the latest state: only what was asked for, the trade resolved.
        await record('as-of', describeQuery({ ...q, trade: answer.trade ?? undefined }));
        print(answer);
        return 0;
      }
      case 'diff': {
        const p = logPosition.parse(position);
        const answer = await eventDiff(ctx, user.uid, p);
        await record('diff', `event=${p}`);
        print(answer);
        return 0;
      }
      case 'verify': {
        const v = await verify(ctx, user.uid, { full: values.full });
        await record('verify', `replayed the whole history${values.full ? ' from the first event' : ''} against the live read models`);
        print(v);
        if (!v.consistent && v.in_flight_events > 0) out.error(`${v.in_flight_events === 1 ? "One of this user's events was" : `${v.in_flight_events} of this user's events were`} not applied to the read models yet (being projected now): the differences may be only ${v.in_flight_events === 1 ? 'that' : 'those'}. Verify again once the user is quiet.`);
        return v.consistent ? 0 : v.in_flight_events > 0 ? 4 : 3;
      }
      case 'export': {
        if ((values.format !== 'jsonl' && values.format !== 'csv') || !values.out) return 2; // refused above, before opening the store
        const file = await exportHistory(ctx, user.uid, values.format);
        // The access log names the file and its SHA-256, so the export is recorded once the file is
        // written, never for one that could not be (QA: a path in no directory logged a digest of
        // nothing, then died with a stack trace). A record that fails takes the file away with it: a
        // read that could not be recorded is not answered (docs/audit.md).
        try {
          await writeFile(values.out, file.body);
        } catch (error) {
          // Node says "ENOENT: no such file or directory, open '<path>'": the path is named once, first.
          const why = error instanceof Error ? error.message.replace(/, \w+ '.*'$/, '') : String(error);
          out.error(`Cannot write ${values.out} (${why}): nothing was exported or recorded.`);
          return 1;
        }
        try {
          await record('export', `format=${values.format} events=${file.events} file=${basename(values.out)}`, file.digest);
        } catch (error) {
          await rm(values.out, { force: true });
          throw error;
        }
        print({ file: values.out, bytes: file.body.length, events: file.events, sha256: file.digest });
        return 0;
      }
    }
    return 2;
  } catch (error) {
    if (error instanceof AppError) {
      out.error(error.message);
      return 1;
    }
    if (error instanceof z.ZodError) {
      // Each refused option by name ("date: Date is invalid."), not the issues' JSON.
      out.error(error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('\n'));
      return 2;
    }
    throw error;
  } finally {
    await runtime.close();
  }
}

if (import.meta.main) {
  process.exitCode = await runAuditCli(process.argv.slice(2));
}
