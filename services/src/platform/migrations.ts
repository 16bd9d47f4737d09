import type { Kysely } from 'kysely';
import { migrateToLatest, type MigrateOptions } from '@oj/infra/db/migrate';
import { migrations as eventStore } from '@oj/infra/eventstore/migrations';
import { migrations as projectorRuntime } from '@oj/projections/runtime/migrations';
import { migrations as identity } from '../identity/migrations.ts';
import { migrations as accounts } from '../accounts/migrations.ts';
import { migrations as mail } from '../mail/migrations.ts';
import { migrations as journal } from '../journal/migrations.ts';
import { migrations as audit } from '../audit/migrations.ts';
import { migrations as operations } from '../operations/migrations.ts';
import { migrations as profile } from '../profile/migrations.ts';
import { migrations as billing } from '../billing/migrations.ts';

/** Every module's migrations, applied at start-up of each process (they are idempotent and locked). */
export const allMigrations = [eventStore, projectorRuntime, identity, accounts, mail, journal, audit, profile, operations, billing];

export function migrate(db: Kysely<any>, options?: MigrateOptions): Promise<string[]> {
  return migrateToLatest(db, allMigrations, options);
}
