import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../testing/postgres.ts';
import { openDatabase, type Database, type MigrationSet } from './database.ts';
import { migrateToLatest, NewerDatabaseError, OlderDatabaseError } from './migrate.ts';

/**
 * Releases as migration sets: `release1` is a release; `expandOnly` a newer one whose migration only
 * adds (declared `olderReleasesMayRun`); `oneWay` a newer one whose migration did not declare it.
 * A release started on a database a newer one migrated runs beside the newer migrations only when each
 * of them said so, and otherwise refuses in one line naming them (QA 75: a raw "corrupted migrations"
 * stack, and no way back).
 */
const table = (name: string, mayRun?: boolean): MigrationSet[string] => ({
  ...(mayRun === undefined ? {} : { olderReleasesMayRun: mayRun }),
  async up(db: Kysely<any>) {
    await db.schema.createTable(name).addColumn('id', 'integer', (c) => c.primaryKey()).execute();
  },
});
const release1: MigrationSet = { '202601010000_first': table('first') };
const expandOnly: MigrationSet = { ...release1, '202602010000_expand_only': table('expand_only', true) };
const oneWay: MigrationSet = { ...expandOnly, '202603010000_one_way': table('one_way') };

const tables = async (db: Kysely<any>) =>
  (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public' order by 1`.execute(db)).rows.map((r) => r.name);

describe.each(['PostgreSQL', 'PGlite'])('releases on a database another release migrated (%s)', (kind) => {
  let server: TestDatabase | undefined;
  let database: Database;
  beforeAll(async () => {
    if (kind === 'PostgreSQL') {
      server = await createTestDatabase('migrate');
      database = server;
    } else {
      database = await openDatabase({});
    }
  });
  afterAll(async () => {
    if (server) await server.drop();
    else await database.close();
  });

  it('applies a release to an empty database even where pending migrations are refused, notes each migration, and starts again with nothing to do', async () => {
    expect(await migrateToLatest(database.db, [release1], { pending: 'refuse' })).toEqual(['202601010000_first']);
    expect(await migrateToLatest(database.db, [release1])).toEqual([]);
    const notes = await sql<{ name: string; may: boolean }>`select name, older_releases_may_run as may from migration_notes order by name`.execute(database.db);
    expect(notes.rows).toEqual([{ name: '202601010000_first', may: false }]);
    // The notes' table is no migration of its own: a release from before the notes, with the same
    // migrations, finds none it does not have (the upgrade that brought the notes stays reversible).
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
    expect(applied.rows.map((r) => r.name)).toEqual(['202601010000_first']);
  });

  it('a tool refuses to upgrade the database of an older release unless asked; a process upgrades it and says what it applies', async () => {
    const refusal = await migrateToLatest(database.db, [expandOnly], { pending: 'refuse' }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(OlderDatabaseError);
    expect((refusal as Error).message).toBe(
      "The database is from an older release: 1 of this release's migrations are not applied (202602010000_expand_only). This command does not upgrade it on its own: " +
        'start this release (npm start, or its gateway or projector), or run the command again with --migrate. Copy the data first (docs/operations.md, "Backup and restore"): ' +
        'the older release may not open it afterwards.',
    );
    expect(await tables(database.db)).not.toContain('expand_only');
    const upgrading: string[][] = [];
    expect(await migrateToLatest(database.db, [expandOnly], { onUpgrade: (names) => upgrading.push(names) })).toEqual(['202602010000_expand_only']);
    expect(upgrading).toEqual([['202602010000_expand_only']]);
  });

  it('runs the older release beside a newer migration that declared it may, and says so', async () => {
    const told: string[][] = [];
    expect(await migrateToLatest(database.db, [release1], { onNewerMigrations: (names) => told.push(names) })).toEqual([]);
    expect(told).toEqual([['202602010000_expand_only']]);
    // The newer release's table is left as it was, and that release starts again as before.
    expect(await tables(database.db)).toContain('expand_only');
    expect(await migrateToLatest(database.db, [expandOnly], { onNewerMigrations: (names) => told.push(names) })).toEqual([]);
    expect(told).toHaveLength(1);
  });

  it('refuses to run the older release beside a migration that did not declare it, naming only that one', async () => {
    await migrateToLatest(database.db, [oneWay]);
    const refusal = await migrateToLatest(database.db, [release1]).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(NewerDatabaseError);
    expect((refusal as NewerDatabaseError).migrations).toEqual(['202603010000_one_way']);
    expect((refusal as Error).message).toBe(
      'The database was migrated by a newer release of Options Journal (migration 202603010000_one_way), which this release does not have: ' +
        'start that release or a newer one again. To go back to this release, restore the backup taken before the upgrade (docs/operations.md, "Deploys: code and data versions").',
    );
    // The release between them refuses it too; the newest starts.
    await expect(migrateToLatest(database.db, [expandOnly])).rejects.toBeInstanceOf(NewerDatabaseError);
    expect(await migrateToLatest(database.db, [oneWay])).toEqual([]);
  });

  it('refuses a newer migration of which no note says anything (a release from before the notes)', async () => {
    await sql`insert into kysely_migration (name, timestamp) values ('202604010000_before_notes', now()::text)`.execute(database.db);
    await expect(migrateToLatest(database.db, [oneWay])).rejects.toMatchObject({ migrations: ['202604010000_before_notes'] });
  });
});
