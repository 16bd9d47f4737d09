import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAuditCli } from './cli.ts';

describe('npm run audit, its command line', () => {
  it('prints its usage for --help, -h and help, and one line with the usage for an unknown option, never a stack trace (QA)', () => {
    const cli = new URL('./cli.ts', import.meta.url).pathname;
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
    const help = run('--help');
    expect([help.status, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(/^Usage: npm run audit/);
    for (const ask of ['-h', 'help']) {
      const again = run(ask);
      expect([again.status, again.stdout], ask).toEqual([0, help.stdout]);
    }
    for (const args of [['--bogus'], ['find', 'someone', '--bogus']]) {
      const bogus = run(...args);
      expect([bogus.status, bogus.stdout, bogus.stderr], args.join(' ')).toEqual([2, '', `Unknown option '--bogus'\n${help.stdout}`]);
    }
  });
});

describe('npm run audit on a data directory without a journal', () => {
  it('says it started a new, empty journal there before it answers: a mistyped DATA_DIR is not read as "not a Support or Admin user" alone', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oj-audit-cli-'));
    const typo = join(dataDir, 'journal-typo');
    try {
      const errors: string[] = [];
      const out = { log: () => undefined, error: (m: string) => errors.push(m) } as unknown as Console;
      const env = { DATA_DIR: typo, LOG_LEVEL: 'silent', NODE_ENV: 'test' };
      expect(await runAuditCli(['find', 'dana', '--as', 'support@example.com'], env, out)).toBe(1);
      expect(errors).toEqual([
        `DATA_DIR ${typo} held no journal: a new, empty one was started there. If your journal is elsewhere, set DATA_DIR to the directory \`npm start\` uses.`,
        'support@example.com is not a Support or Admin user.',
      ]);
      // Now it holds one: nothing more is said about it.
      errors.length = 0;
      expect(await runAuditCli(['find', 'dana', '--as', 'support@example.com'], env, out)).toBe(1);
      expect(errors).toEqual(['support@example.com is not a Support or Admin user.']);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
