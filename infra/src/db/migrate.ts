import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { MigrationSet } from './database.ts';

/**
 * Every module owns its migrations (timestamp-named, typed `Kysely<any>` so they never depend on
 * today's types); this runs their union. Modules are developed side by side, so a migration may be
 * named earlier than one already applied: `allowUnorderedMigrations` accepts that.
 */
export async function migrateToLatest(db: Kysely<any>, sets: MigrationSet[]): Promise<string[]> {
  const all: Record<string, Migration> = {};
  for (const set of sets) {
    for (const [name, migration] of Object.entries(set)) {
      if (all[name]) throw new Error(`Two migrations are named ${name}`);
      all[name] = migration;
    }
  }
  const provider: MigrationProvider = { getMigrations: async () => all };
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
