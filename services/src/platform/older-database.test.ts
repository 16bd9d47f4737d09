import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@oj/infra/testing/postgres';
import { migrations as mail } from '../mail/migrations.ts';
import { runAdminCli } from '../identity/cli.ts';
import { runAuditCli } from '../audit/cli.ts';
import { migrate } from './migrations.ts';

const run = promisify(execFile);
const entry = (file: string) => fileURLToPath(new URL(`../../../${file}`, import.meta.url));

/**
 * A database an older release migrated (here: this release's newest mail migration undone), met by this
 * release's command-line tools. None upgrades it on its own (QA 73: a read-only `projections status`
 * from a new checkout upgraded an old data directory, which its own release could then no longer
 * open); each says so in one line and changes nothing; with --migrate it is upgraded.
 */
describe("a database an older release migrated, met by this release's tools", () => {
  let server: TestDatabase;
  const older = '202612050530_mail_outbox_reply_to';
  const lines: string[] = [];
  const out = { log: () => undefined, error: (m: string) => lines.push(m) } as unknown as Console;
  const applied = async () => (await sql<{ name: string }>`select name from kysely_migration where name = ${older}`.execute(server.db)).rows.length;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await createTestDatabase('older_release');
    await migrate(server.db);
    await mail[older]!.down!(server.db);
    await sql`delete from kysely_migration where name = ${older}`.execute(server.db);
    env = { PATH: process.env.PATH ?? '', DATABASE_URL: server.url, LOG_LEVEL: 'silent', NODE_ENV: 'test' };
  });
  afterAll(async () => {
    await server?.drop();
  });

  const refusal = `The database is from an older release: 1 of this release's migrations are not applied (${older}). This command does not upgrade it on its own: start this release (npm start, or its gateway or projector), or run the command again with --migrate. Copy the data first (docs/operations.md, "Backup and restore"): the older release may not open it afterwards.`;

  it('admin, audit, seed and projections refuse it in one line and leave it as it was', async () => {
    expect(await runAdminCli(['grant-role', '--email', 'nobody@example.com', '--role', 'Support'], env, out)).toBe(1);
    expect(await runAuditCli(['find', 'nobody@example.com', '--as', 'staff@example.com'], env, out)).toBe(1);
    expect(lines).toEqual([refusal, refusal]);
    for (const [file, args] of [
      ['services/src/journal/seed/cli.ts', ['--users', '1', '--trades', '1']],
      ['projections/src/cli.ts', ['status']],
    ] as const) {
      const failure = await run(process.execPath, [entry(file), ...args], { env }).then(
        () => null,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failure?.code, file).toBe(1);
      expect(failure?.stderr?.trim(), file).toBe(refusal);
    }
    expect(await applied()).toBe(0);
  });

  it('with --migrate, a tool upgrades it and runs', async () => {
    const { stdout } = await run(process.execPath, [entry('projections/src/cli.ts'), 'status', '--migrate'], { env });
    expect(stdout).toContain('trades (code v');
    expect(await applied()).toBe(1);
    lines.length = 0;
    expect(await runAdminCli(['grant-role', '--email', 'nobody@example.com', '--role', 'Support'], env, out)).toBe(1);
    expect(lines).toEqual(['No user with e-mail nobody@example.com.']);
  });
});
