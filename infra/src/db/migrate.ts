import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { ConfigError } from '../config.ts';
import type { MigrationSet, ModuleMigration } from './database.ts';

/**
 * The database holds migrations a newer release applied and this release does not have, and at least one
 * of them did not declare that older releases may run beside it: this release refuses to start on it (one
 * line, as a setting the operator must fix), rather than run its code on a schema it does not know.
 */
export class NewerDatabaseError extends ConfigError {
  readonly migrations: string[];
  constructor(migrations: string[]) {
    super(
      `The database was migrated by a newer release of Options Journal (migration ${migrations.join(', ')}), which this release does not have: ` +
        `start that release or a newer one again. To go back to this release, restore the backup taken before the upgrade (docs/operations.md, "Deploys: code and data versions").`,
    );
    this.name = 'NewerDatabaseError';
    this.migrations = migrations;
  }
}

/**
 * A command-line tool found a database an older release migrated, with migrations of this release still
 * to apply: it does not upgrade a journal on its own (QA 73: a read-only `status` from a new checkout
 * upgraded an old data directory, which its own release could then no longer open).
 */
export class OlderDatabaseError extends ConfigError {
  readonly migrations: string[];
  constructor(migrations: string[]) {
    const named = migrations.length > 3 ? `${migrations.slice(0, 3).join(', ')} and ${migrations.length - 3} more` : migrations.join(', ');
    super(
      `The database is from an older release: ${migrations.length} of this release's migrations are not applied (${named}). This command does not upgrade it on its own: ` +
        `start this release (npm start, or its gateway or projector), or run the command again with --migrate. Copy the data first (docs/operations.md, "Backup and restore"): ` +
        `the older release may not open it afterwards.`,
    );
    this.name = 'OlderDatabaseError';
    this.migrations = migrations;
  }
}

/**
 * What each applied migration allows the releases before it: read by those releases, written by every
 * one. Created beside the migrations, not as one: a migration of its own would be one more that the
 * releases before it do not have, and would make the upgrade to the release that brought it one-way.
 */
async function ensureNotesTable(db: Kysely<any>): Promise<void> {
  try {
    await sql`create table if not exists migration_notes (name text primary key, older_releases_may_run boolean not null)`.execute(db);
  } catch (error) {
    // Two processes starting at once: the other one created it (PostgreSQL's catalog race on IF NOT EXISTS:
    // a unique violation, "relation already exists", or "type … already exists", 42710, which CI saw when
    // two gateway processes started on a new database and one died of it).
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P07' && code !== '42710') throw error;
  }
}

export interface MigrateOptions {
  /**
   * What to do with this release's migrations not applied yet to a database migrated before: `apply`
   * them (the app's processes: starting a release upgrades its database), or `refuse` with
   * `OlderDatabaseError` (the command-line tools, unless asked). A new, empty database is migrated either way.
   */
  pending?: 'apply' | 'refuse';
  /** Told the migrations about to be applied to a database migrated before (an upgrade), before they run. */
  onUpgrade?: (names: string[]) => void;
  /**
   * Told the migrations of a newer release this one runs beside (each declared `olderReleasesMayRun`),
   * so the process can say so once at start.
   */
  onNewerMigrations?: (names: string[]) => void;
}

/**
 * Every module owns its migrations (timestamp-named, typed `Kysely<any>` so they never depend on
 * today's types); this runs their union. Modules are developed side by side, so a migration may be
 * named earlier than one already applied: `allowUnorderedMigrations` accepts that.
 *
 * A migration in the database that this code does not have was applied by a newer release (a deploy
 * rolled back, or an old process started beside new ones). Kysely refuses it as "corrupted migrations";
 * here it is either run beside, when the newer release noted that its migration lets older releases run
 * (`migration_notes`, written by every release for each of its migrations), or refused with
 * `NewerDatabaseError`, naming it and what to do.
 */
export async function migrateToLatest(db: Kysely<any>, sets: MigrationSet[], options: MigrateOptions = {}): Promise<string[]> {
  const all: Record<string, ModuleMigration> = {};
  for (const set of sets) {
    for (const [name, migration] of Object.entries(set)) {
      if (all[name]) throw new Error(`Two migrations are named ${name}`);
      all[name] = migration;
    }
  }
  const applied = await appliedMigrations(db);
  const newer = applied.filter((name) => !(name in all));
  if (newer.length > 0) {
    const mayRun = await olderReleasesMayRun(db, newer);
    const refused = newer.filter((name) => !mayRun.has(name));
    if (refused.length > 0) throw new NewerDatabaseError(refused);
    options.onNewerMigrations?.(newer);
  }
  if (applied.length > 0) {
    const done = new Set(applied);
    const pending = Object.keys(all)
      .filter((name) => !done.has(name))
      .sort();
    if (pending.length > 0) {
      if (options.pending === 'refuse') throw new OlderDatabaseError(pending);
      options.onUpgrade?.(pending);
    }
  }
  // Applied already, so never run: present only so that Kysely counts them as known.
  const known: Record<string, Migration> = { ...all };
  for (const name of newer) known[name] = { up: async () => {} };
  const provider: MigrationProvider = { getMigrations: async () => known };
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    // A newer release's process migrated between the look above and the migrator's lock.
    const missing = /^corrupted migrations: previously executed migration (\S+) is missing/.exec(error instanceof Error ? error.message : '');
    if (missing) throw new NewerDatabaseError([missing[1]!]);
    throw error instanceof Error ? error : new Error(String(error));
  }
  await ensureNotesTable(db);
  await noteMigrations(db, all);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

const tableExists = async (db: Kysely<any>, table: string): Promise<boolean> =>
  (await sql<{ present: boolean }>`select to_regclass(${table}) is not null as present`.execute(db)).rows[0]?.present === true;

async function appliedMigrations(db: Kysely<any>): Promise<string[]> {
  if (!(await tableExists(db, 'kysely_migration'))) return [];
  const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return applied.rows.map((r) => r.name);
}

async function olderReleasesMayRun(db: Kysely<any>, names: string[]): Promise<Set<string>> {
  if (!(await tableExists(db, 'migration_notes'))) return new Set();
  const notes = await sql<{ name: string }>`select name from migration_notes where older_releases_may_run and name = any(${names}::text[])`.execute(db);
  return new Set(notes.rows.map((r) => r.name));
}

/** Writes what each of this release's migrations allows older releases (idempotent: every process at start). */
async function noteMigrations(db: Kysely<any>, all: Record<string, ModuleMigration>): Promise<void> {
  const names = Object.keys(all);
  const flags = names.map((name) => all[name]!.olderReleasesMayRun === true);
  await sql`
    insert into migration_notes (name, older_releases_may_run)
    select * from unnest(${names}::text[], ${flags}::boolean[])
    on conflict (name) do update set older_releases_may_run = excluded.older_releases_may_run
    where migration_notes.older_releases_may_run is distinct from excluded.older_releases_may_run`.execute(db);
}
