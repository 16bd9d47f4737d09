import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './testing/processes.ts';

/** A process that passes the `rebuild.finished` failpoint, then says it went on. */
const script = `
import { failpoint } from './infra/src/failpoints.ts';
const at = failpoint('rebuild.finished');
process.stderr.write(at === undefined ? 'returned at once\\n' : 'returned a promise\\n');
await at;
process.stderr.write('went on\\n');
`;

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  child.stderr.on('data', (c: Buffer) => void (said += c.toString()));
  return { child, said: () => said };
}

describe('failpoints', () => {
  it('return at once, without a promise, when not armed', async () => {
    const r = run({ OJ_FAILPOINTS: 'some.other,  ' });
    const [code] = await once(r.child, 'exit');
    expect(r.said()).toBe('returned at once\nwent on\n');
    expect(code).toBe(0);
  });

  it('hold the process, saying so, when armed', async () => {
    const r = run({ OJ_FAILPOINTS: 'some.other, rebuild.finished' });
    const exited = once(r.child, 'exit');
    try {
      // Both lines: the child's two writes may come in two reads.
      for (let i = 0; i < 200 && !r.said().includes('returned'); i++) await new Promise((res) => setTimeout(res, 25));
      expect(r.said()).toBe('failpoint rebuild.finished reached\nreturned a promise\n');
      // Still held a while later: it neither went on nor exited.
      await new Promise((res) => setTimeout(res, 500));
      expect(r.child.exitCode).toBeNull();
      expect(r.said()).not.toContain('went on');
    } finally {
      // A held child never ends by itself: a failed expectation must not leave it running.
      r.child.kill('SIGKILL');
      await exited;
    }
  });
});
