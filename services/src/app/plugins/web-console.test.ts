import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtempSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { ConsoleFiles } from './console-files.ts';
import { consoleBuildOf, registerWebConsole } from './web-console.ts';

let app: FastifyInstance;
let root: string;
let files: ConsoleFiles | null;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'oj-web-console-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="/assets/index-aaaa.js"></script>');
  writeFileSync(join(root, 'assets', 'index-aaaa.js'), 'console.log("first build")');
  app = Fastify();
  files = await registerWebConsole(app, root);
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the console served by the gateway', () => {
  it('answers client routes with index.html, and the built files as themselves', async () => {
    for (const url of ['/', '/trades/open', '/users/account-verify?token=a.b.c']) {
      const res = await app.inject({ url });
      expect([url, res.statusCode, res.headers['content-type']]).toEqual([url, 200, 'text/html; charset=utf-8']);
      expect(res.body).toContain('/assets/index-aaaa.js');
    }
    const js = await app.inject({ url: '/assets/index-aaaa.js' });
    expect([js.statusCode, js.body]).toEqual([200, 'console.log("first build")']);
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
  });

  it('serves a build published while it runs, and never answers a missing script with HTML', async () => {
    // What `npm run build:web` does to a running gateway: new hashed files beside the old, a new index.html.
    writeFileSync(join(root, 'assets', 'index-bbbb.js'), 'console.log("second build")');
    writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="/assets/index-bbbb.js"></script>');
    expect((await app.inject({ url: '/trades/open' })).body).toContain('/assets/index-bbbb.js');
    const js = await app.inject({ url: '/assets/index-bbbb.js' });
    expect([js.statusCode, js.body]).toEqual([200, 'console.log("second build")']);
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    // The page loaded before the build still finds its own script.
    expect((await app.inject({ url: '/assets/index-aaaa.js' })).statusCode).toBe(200);
    const missing = await app.inject({ url: '/assets/index-cccc.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).not.toMatch(/html/);
  });

  it('keeps requests inside its folder, and API paths out of it', async () => {
    for (const url of ['/assets/..%2f..%2fetc%2fpasswd.js', '/../package.json', '/%2e%2e/%2e%2e/etc/hosts.txt', '/assets/..%252f..%252fpackage.json', '/assets/%E0%A4%A.js']) {
      const res = await app.inject({ url });
      // Refused, never a 500 (a path that does not decode included).
      expect([url, res.statusCode >= 400 && res.statusCode < 500]).toEqual([url, true]);
      expect(res.body).not.toMatch(/root:|"name"/);
    }
    const api = await app.inject({ url: '/api/v1/nope' });
    expect([api.statusCode, api.json().message]).toEqual([404, 'Route GET /api/v1/nope not found.']);
    // A path longer than the router takes a parameter of reaches this route; cut short as elsewhere (QA: 5,000 characters echoed).
    const long = await app.inject({ url: `/api/v1/trades/${'a'.repeat(5000)}/roll-history` });
    expect([long.statusCode, long.json().message]).toEqual([404, `Route GET /api/v1/trades/${'a'.repeat(105)}… not found.`]);
  });
});

describe('the console sent from memory', () => {
  // A script as a build writes it: 60 KB of text that compresses well.
  const script = Array.from({ length: 1500 }, (_, i) => `export const value${i} = "${'abcdefgh'.repeat(4)}${i}";`).join('\n');
  const picture = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251));

  it('sends text brotli- or gzip-compressed as the browser accepts it, the same bytes once decompressed, and pictures as they are', async () => {
    writeFileSync(join(root, 'assets', 'chunk-cccc.js'), script);
    writeFileSync(join(root, 'assets', 'shot-dddd.jpg'), picture);
    const file = files!.get('/assets/chunk-cccc.js')!;
    await file.compressed;

    const chrome = await app.inject({ url: '/assets/chunk-cccc.js', headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect([chrome.statusCode, chrome.headers['content-encoding'], chrome.headers.vary]).toEqual([200, 'br', 'accept-encoding']);
    expect(brotliDecompressSync(chrome.rawPayload).toString()).toBe(script);
    expect(chrome.rawPayload.length).toBeLessThan(script.length / 4);

    const gzipOnly = await app.inject({ url: '/assets/chunk-cccc.js', headers: { 'accept-encoding': 'br;q=0, gzip' } });
    expect(gzipOnly.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipOnly.rawPayload).toString()).toBe(script);

    const plain = await app.inject({ url: '/assets/chunk-cccc.js' });
    expect([plain.headers['content-encoding'], plain.body, plain.headers['content-length']]).toEqual([undefined, script, String(Buffer.byteLength(script))]);

    const jpg = await app.inject({ url: '/assets/shot-dddd.jpg', headers: { 'accept-encoding': 'gzip, br' } });
    expect([jpg.statusCode, jpg.headers['content-type'], jpg.headers['content-encoding']]).toEqual([200, 'image/jpeg', undefined]);
    expect(jpg.rawPayload.equals(picture)).toBe(true);
  });

  it("lets the browser keep the build's hashed files for good, and ask again for index.html (304 while unchanged)", async () => {
    const js = await app.inject({ url: '/assets/chunk-cccc.js' });
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const again = await app.inject({ url: '/assets/chunk-cccc.js', headers: { 'if-none-match': String(js.headers.etag) } });
    expect([again.statusCode, again.body]).toEqual([304, '']);

    const page = await app.inject({ url: '/trades/open' });
    expect(page.headers['cache-control']).toBe('no-cache');
    const unchanged = await app.inject({ url: '/', headers: { 'if-none-match': `"x", ${String(page.headers.etag)}` } });
    expect(unchanged.statusCode).toBe(304);
    writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="/assets/index-eeee.js"></script><!-- a new build -->');
    const changed = await app.inject({ url: '/trades/open', headers: { 'if-none-match': String(page.headers.etag) } });
    expect([changed.statusCode, changed.headers.etag === page.headers.etag]).toEqual([200, false]);
    expect(changed.body).toContain('/assets/index-eeee.js');
  });

  it('forgets a file taken out of the build', async () => {
    writeFileSync(join(root, 'assets', 'old-ffff.js'), 'console.log("old")');
    expect((await app.inject({ url: '/assets/old-ffff.js' })).statusCode).toBe(200);
    unlinkSync(join(root, 'assets', 'old-ffff.js'));
    expect((await app.inject({ url: '/assets/old-ffff.js' })).statusCode).toBe(404);
  });
});

describe('the console build the gateway names (x-oj-console)', () => {
  it("names index.html's entry script, the one built later once it is published, and nothing without a build", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oj-console-build-'));
    try {
      const build = consoleBuildOf(dir);
      expect(build()).toBeNull();
      writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" crossorigin src="/assets/index-Js2OhMe1.js"></script>');
      await new Promise((r) => setTimeout(r, 1100)); // read again at most once a second
      expect(build()).toBe('index-Js2OhMe1.js');
      writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" crossorigin src="/assets/index-Qx9.js"></script>');
      await new Promise((r) => setTimeout(r, 1100));
      expect(build()).toBe('index-Qx9.js');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
