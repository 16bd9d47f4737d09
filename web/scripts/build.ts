import { build } from 'vite';
import { copyFile, mkdir, mkdtemp, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run build -w web`: builds into a private temporary directory, then publishes into web/dist
 * without ever leaving it empty. Several people build and run browser tests on one machine: a plain
 * `vite build` empties web/dist first, so a running server answers 404 for index.html, and a page
 * loaded from the previous build fails to import its lazy chunks. Here new hashed assets are added
 * next to the old ones, index.html is swapped in with an atomic rename, and assets of builds older
 * than an hour are removed.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const out = await mkdtemp(join(tmpdir(), 'oj-web-build-'));
const KEEP_OLD_ASSETS_MS = 60 * 60 * 1000;

try {
  await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'info', build: { outDir: out, emptyOutDir: true } });
  await mkdir(join(dist, 'assets'), { recursive: true });
  const started = Date.now();
  for (const f of await readdir(join(out, 'assets'))) await copyFile(join(out, 'assets', f), join(dist, 'assets', f));
  for (const entry of await readdir(out, { withFileTypes: true })) {
    if (entry.isFile() && entry.name !== 'index.html') await copyFile(join(out, entry.name), join(dist, entry.name));
  }
  const staged = join(dist, `.index.html.${process.pid}`);
  await copyFile(join(out, 'index.html'), staged);
  await rename(staged, join(dist, 'index.html'));
  const fresh = new Set(await readdir(join(out, 'assets')));
  for (const f of await readdir(join(dist, 'assets'))) {
    if (fresh.has(f)) continue;
    const file = join(dist, 'assets', f);
    const s = await stat(file).catch(() => null);
    if (s && started - s.mtimeMs > KEEP_OLD_ASSETS_MS) await unlink(file).catch(() => undefined);
  }
} finally {
  await rm(out, { recursive: true, force: true });
}
