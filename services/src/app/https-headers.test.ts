import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../identity/testing.ts';

/**
 * A journal reached over plain HTTP on another address than localhost (a LAN IP, a host name) must work:
 * helmet's defaults told the browser to upgrade every request to HTTPS and to remember HTTPS for the host,
 * and the console stayed a blank page (QA: ERR_SSL_PROTOCOL_ERROR for its scripts). Behind HTTPS both stay.
 */
describe('security headers by the public address', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });
  const headersAt = async (publicUrl: string) => {
    const t = await createTestApp({ pglite: true, env: { PUBLIC_URL: publicUrl } });
    apps.push(t);
    return (await t.app.inject({ method: 'GET', url: '/api/v1/health' })).headers;
  };

  it('over plain HTTP: no upgrade of requests to HTTPS, no HSTS', async () => {
    const h = await headersAt('http://192.0.2.2:4206');
    expect(String(h['content-security-policy'])).toContain("default-src 'self'");
    expect(String(h['content-security-policy'])).not.toContain('upgrade-insecure-requests');
    expect(h['strict-transport-security']).toBeUndefined();
  });

  it('behind HTTPS: both', async () => {
    const h = await headersAt('https://journal.example.com');
    expect(String(h['content-security-policy'])).toContain('upgrade-insecure-requests');
    expect(String(h['strict-transport-security'])).toContain('max-age=');
  });
});
