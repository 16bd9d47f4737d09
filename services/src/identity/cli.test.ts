import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runAdminCli } from './cli.ts';

describe('npm run admin, its command line', () => {
  it('prints its usage for --help, -h and help, and one line with the usage for an unknown option, never a stack trace (QA)', () => {
    const cli = new URL('./cli.ts', import.meta.url).pathname;
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: '' } });
    const help = run('--help');
    expect([help.status, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(/^Usage:/);
    for (const ask of ['-h', 'help']) {
      const again = run(ask);
      expect([again.status, again.stdout], ask).toEqual([0, help.stdout]);
    }
    for (const args of [['--bogus'], ['create-admin', '--bogus']]) {
      const bogus = run(...args);
      expect([bogus.status, bogus.stdout, bogus.stderr], args.join(' ')).toEqual([2, '', `Unknown option '--bogus'\n${help.stdout}`]);
    }
  });
});

describe('npm run admin -- create-admin', () => {
  it('names the password rules a weak password misses, as the sign-up checklist does (QA: only "does not meet all requirements")', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oj-admin-cli-'));
    try {
      const errors: string[] = [];
      const out = { log: () => undefined, error: (m: string) => errors.push(m) } as unknown as Console;
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'test' };
      expect(await runAdminCli(['create-admin', '--email', 'boss@example.com', '--name', 'Big Boss', '--password', 'Admin1pass'], env, out)).toBe(2);
      expect(errors[0]).toBe('Password does not meet all requirements: at least one special character (!@#$%^&*()).');
      errors.length = 0;
      expect(await runAdminCli(['create-admin', '--email', 'boss@example.com', '--name', 'Big Boss', '--password', 'abc'], env, out)).toBe(2);
      expect(errors[0]).toBe('Password does not meet all requirements: at least 6 characters, at least one uppercase letter, at least one number, at least one special character (!@#$%^&*()).');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm run admin -- grant-role', () => {
  it('says which role the new one replaced: a user has one (QA: an Admin given Operator lost Admin without a word)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'oj-admin-cli-'));
    try {
      const lines: string[] = [];
      const out = { log: (m: string) => lines.push(m), error: (m: string) => lines.push(`error: ${m}`) } as unknown as Console;
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'test' };
      expect(await runAdminCli(['create-admin', '--email', 'boss@example.com', '--name', 'Big Boss', '--password', 'Admin#1pass'], env, out)).toBe(0);
      expect(await runAdminCli(['grant-role', '--email', 'Boss@Example.com', '--role', 'Operator'], env, out)).toBe(0);
      expect(await runAdminCli(['grant-role', '--email', 'boss@example.com', '--role', 'Operator'], env, out)).toBe(0);
      expect(await runAdminCli(['grant-role', '--email', 'nobody@example.com', '--role', 'Support'], env, out)).toBe(1);
      // The first command found no journal in the new directory and says it started one; the others do not.
      expect(lines).toEqual([
        `error: DATA_DIR ${dataDir} held no journal: a new, empty one was started there. If your journal is elsewhere, set DATA_DIR to the directory \`npm start\` uses.`,
        'Created Admin boss@example.com.',
        'Boss@Example.com is now Operator (was Admin: a user has one role).',
        'boss@example.com is already Operator.',
        'error: No user with e-mail nobody@example.com.',
      ]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
