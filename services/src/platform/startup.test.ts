import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const entry = (file: string) => fileURLToPath(new URL(`../${file}`, import.meta.url));

/** Every process entry point stops at once on a bad value, naming the variable, without a stack trace. */
describe.each(['main.ts', 'gateway.ts', 'projector.ts'])('starting %s with a bad configuration', (file) => {
  it('exits with code 2 and a message naming the variable', async () => {
    const failure = await run(process.execPath, [entry(file)], {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: '/tmp/oj-startup-test-unused', PORT: 'abc', REDIS_URL: 'http://cache' },
      timeout: 20_000,
    }).then(
      () => null,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure).not.toBeNull();
    expect(failure!.code).toBe(2);
    expect(failure!.stderr).toContain('Invalid configuration:');
    expect(failure!.stderr).toContain('  PORT: ');
    expect(failure!.stderr).toContain('  REDIS_URL: must be a URL starting with redis:// or rediss://');
    expect(failure!.stderr).not.toMatch(/^\s+at /m);
  });
});
