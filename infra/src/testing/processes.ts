import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The product's own processes (`npm run gateway`, `npm run projector`, `npm start`) as tests and benches
 * run them: on a free port, with their own environment, waited for until healthy, stopped as a
 * deployment stops them (SIGTERM, then the exit).
 */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A port nothing listens on now (the OS picks it; another process may still take it before use). */
export function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
}

type ServiceEntry = 'gateway' | 'projector' | 'main';
/** The npm script that starts each entry in production. */
const scriptOf: Record<ServiceEntry, string> = { gateway: 'gateway', projector: 'projector', main: 'start:only' };

/**
 * The Node options the entry's npm script starts it with (`npm run gateway` is `node <options>
 * services/src/gateway.ts`), read from package.json: tests and benches run the process as production
 * does, V8's heap settings included. Throws if the script is not of that form.
 */
export function nodeOptionsOf(entry: ServiceEntry): string[] {
  const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = (scripts[scriptOf[entry]] ?? '').trim().split(/\s+/);
  const options = words.slice(1, -1);
  if (words[0] !== 'node' || words.at(-1) !== `services/src/${entry}.ts` || !options.every((o) => o.startsWith('--'))) {
    throw new Error(`package.json script ${scriptOf[entry]} is not "node [--options] services/src/${entry}.ts": ${scripts[scriptOf[entry]]}`);
  }
  return options;
}

/** `services/src/<entry>.ts` as its own Node process, from the repository root, as its npm script starts it. */
export function spawnService(entry: ServiceEntry, env: NodeJS.ProcessEnv, stdio: StdioOptions = ['ignore', 'ignore', 'inherit']): ChildProcess {
  return spawn(process.execPath, [...nodeOptionsOf(entry), `services/src/${entry}.ts`], { cwd: REPO_ROOT, env, stdio });
}

/** Until `GET <base>/api/v1/health` answers 2xx; throws after `timeoutMs`. */
export async function waitHealthy(base: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fetch(`${base}/api/v1/health`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} did not answer /api/v1/health within ${timeoutMs} ms`);
}

/** SIGTERM, then waits for the exit (at once if it has exited already). */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}
