import { parseArgs } from 'node:util';
import { commandLineError } from '@oj/infra/command-line';
import { ConfigError, loadConfig, type Config } from '@oj/infra/config';
import { systemClock } from '@oj/infra/clock';
import { openDatabase, type Database } from '@oj/infra/db/database';
import { claimDataDir, newJournalNotice, startsNewJournal } from '@oj/projections/runtime/data-dir-lock';
import { passwordMessages, roleName, SIGNUP_PASSWORD_MIN, signupRequest, unmetPasswordRules } from '@oj/contracts/users';
import { migrate } from '../platform/migrations.ts';
import { AppError } from '../app/errors.ts';
import { createUser, setRole } from './commands.ts';

export const usage = `Usage:
  npm run admin -- create-admin --email <email> --name "<First Last>" --password <password> [--role Admin|Super|Moderator|Support|Operator]
      Creates a verified staff user (default role Admin). The password follows the sign-up rules.
  npm run admin -- grant-role --email <email> --role Admin|Super|Moderator|Support|Operator|User
      Sets an existing user's role and marks the e-mail verified (\`promote\` is the same, default Admin).
      A user has one role: the new one replaces the one it had (Admin reaches every staff screen).
Uses the same DATABASE_URL / DATA_DIR as the server. In embedded mode (no DATABASE_URL) stop the server
first: its PGlite database under DATA_DIR/pg can be open in one process at a time. A database an older
release migrated is refused unless --migrate (this release's migrations are applied first: copy the data before).`;

/** Runs one CLI command; returns the exit code. */
export async function runAdminCli(argv: string[], env: Record<string, string | undefined> = process.env, out = console): Promise<number> {
  const options = { email: { type: 'string' }, name: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' }, migrate: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options, strict: true });
  } catch (error) {
    out.error(`${commandLineError(error)}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command] = positionals;
  if (values.help || command === 'help') {
    out.log(usage);
    return 0;
  }
  if (positionals.length !== 1 || (command !== 'create-admin' && command !== 'promote' && command !== 'grant-role')) {
    out.error(usage);
    return 2;
  }
  if (command === 'grant-role' && !values.role) {
    out.error(usage);
    return 2;
  }
  // `--role support` as the docs write it, or `Support` as the enum spells it.
  const wanted = values.role ?? 'Admin';
  const role = roleName.safeParse(roleName.options.find((r) => r.toLowerCase() === wanted.toLowerCase()) ?? wanted);
  if (!role.success) {
    out.error(`--role must be one of ${roleName.options.join(', ')}`);
    return 2;
  }
  const signup = command === 'create-admin' ? signupRequest.safeParse({ name: values.name, email: values.email, password: values.password, agreed_to_terms: true }) : null;
  if (signup && !signup.success) {
    // The messages name their field. A weak password's says which rules it misses: the sign-up form's
    // checklist shows them beside the same sentence, a terminal has only this line.
    const unmet = unmetPasswordRules(values.password ?? '', SIGNUP_PASSWORD_MIN).map((rule) => rule.charAt(0).toLowerCase() + rule.slice(1));
    const say = (message: string) => (message === passwordMessages.weak ? `${message.replace(/\.$/, '')}: ${unmet.join(', ')}.` : message);
    out.error(signup.error.issues.map((i) => say(i.message)).join('\n'));
    out.error(usage);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    out.error(error.message);
    return 2;
  }
  // PGlite is single-process: a second process writing the embedded database beside `npm start` is not
  // seen by it and can corrupt it (QA: "Created Admin" here, 401 at sign-in until the server restarted).
  let claim: { release(): void } | null = null;
  let database: Database;
  const started = startsNewJournal(config);
  try {
    claim = config.DATABASE_URL ? null : claimDataDir(config.DATA_DIR);
    database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATABASE_URL ? undefined : `${config.DATA_DIR}/pg`, preparedStatements: config.DATABASE_PREPARED_STATEMENTS });
  } catch (error) {
    // A directory another process holds, or one this process cannot write or open: one line, no stack.
    if (error instanceof ConfigError) {
      claim?.release();
      out.error(error.message);
      return 1;
    }
    throw error;
  }
  try {
    try {
      await migrate(database.db, { pending: values.migrate ? 'apply' : 'refuse' });
    } catch (error) {
      // A database a newer or an older release migrated (NewerDatabaseError, OlderDatabaseError): one line, not a stack.
      if (!(error instanceof ConfigError)) throw error;
      out.error(error.message);
      return 1;
    }
    if (started) out.error(newJournalNotice(config.DATA_DIR));
    const ctx = { db: database.db, clock: systemClock, config };
    if (signup?.success) {
      const admin = signup.data;
      try {
        await createUser(ctx, { name: admin.name, email: admin.email, password: admin.password, role: role.data, verified: true });
      } catch (error) {
        if (error instanceof AppError) {
          out.error(error.message);
          return 1;
        }
        throw error;
      }
      out.log(`Created ${role.data} ${admin.email}.`);
      return 0;
    }
    if (!values.email) {
      out.error(usage);
      return 2;
    }
    const set = await setRole(ctx, values.email, role.data);
    if (!set) {
      out.error(`No user with e-mail ${values.email}.`);
      return 1;
    }
    // A user has one role: say which one the new one replaced (QA: an Admin given Operator lost Admin silently).
    out.log(set.previous === role.data ? `${values.email} is already ${role.data}.` : `${values.email} is now ${role.data} (was ${set.previous}: a user has one role).`);
    return 0;
  } finally {
    await database.close();
    claim?.release();
  }
}

if (import.meta.main) {
  process.exitCode = await runAdminCli(process.argv.slice(2));
}
