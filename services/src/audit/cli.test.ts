import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

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
