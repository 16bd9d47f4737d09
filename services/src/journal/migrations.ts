import type { Kysely } from 'kysely';
import type { MigrationSet } from '@oj/infra/db/database';

// This module's tables. Names are timestamps (YYYYMMDDHHMM_what) so they sort in creation order.
export const migrations: MigrationSet = {
  /**
   * Which lineage (stream) a trade uid lives in, and whose it is. Written by the command handler before
   * the append that creates the uid, so a command never waits for the projector to find its stream. A
   * row whose append then failed points at a lineage without that trade, which decides "not found".
   * Opening trades have no row: their stream id is `trade-<userId>.<uid>` (see journal/commands.ts).
   */
  '202611222130_trade_lineage_index': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('trade_lineage_index')
        .addColumn('trade_uid', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('lineage_id', 'text', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('trade_lineage_index').execute();
    },
  },
  /** The first answer of a command sent with an Idempotency-Key, returned again on a retry. */
  '202611222131_journal_command_answers': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('journal_command_answers')
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('command', 'text', (c) => c.notNull())
        .addColumn('answer', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('journal_command_answers_pk', ['user_id', 'idempotency_key'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('journal_command_answers').execute();
    },
  },
  /**
   * What the first request under a key asked for (a SHA-256 of its command and validated body): the key
   * reused with other contents is refused instead of answered with the first request's answer. Rows
   * stored before this column have none and are compared by command only, as before.
   */
  '202611231300_journal_command_answers_request_hash': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('journal_command_answers').addColumn('request_hash', 'text').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('journal_command_answers').dropColumn('request_hash').execute();
    },
  },
  /**
   * A key is claimed before its command is decided (a row without an answer yet), so two concurrent
   * requests under one key with different contents cannot both pass the digest check (issue 16, defect 9).
   */
  '202611241420_journal_command_answers_claim': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('journal_command_answers').alterColumn('answer', (c) => c.dropNotNull()).execute();
    },
    async down(db: Kysely<any>) {
      await db.deleteFrom('journal_command_answers').where('answer', 'is', null).execute();
      await db.schema.alterTable('journal_command_answers').alterColumn('answer', (c) => c.setNotNull()).execute();
    },
  },
};
