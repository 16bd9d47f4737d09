import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleBuildOf, registerWebConsole } from './web-console.ts';

let app: FastifyInstance;
let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'oj-web-console-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="/assets/index-aaaa.js"></script>');
  writeFileSync(join(root, 'assets', 'index-aaaa.js'), 'console.log("first build")');
  app = Fastify();
  await registerWebConsole(app, root);
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
