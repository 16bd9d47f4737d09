import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/oj-config-test-unused', JWT_SECRET: 'x'.repeat(40) } as const;

function failure(env: Record<string, string>): string {
  try {
    loadConfig({ ...base, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('configuration', () => {
  it('selects the embedded default for every unset service URL', () => {
    const config = loadConfig(base);
    expect(config.mode).toEqual({ database: 'pglite', eventStore: 'postgres', projector: 'in-process', mail: 'files', billing: 'self-hosted' });
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_PREPARED_STATEMENTS).toBe('auto');
    expect(config.PUBLIC_URL).toBe('http://localhost:3000');
    expect(config.WEB_ORIGIN).toBe('http://localhost:3000');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://db/x'],
    ['REDIS_URL', 'http://cache'],
    ['EVENTSTORE_URL', 'tcp://es:1113'],
    ['SMTP_URL', 'mail.example.com'],
    ['PUBLIC_URL', 'not a url'],
    ['JWT_SECRET', 'short'],
    ['ACCESS_TOKEN_TTL_SECONDS', '5'],
    ['REFRESH_TOKEN_TTL_DAYS', '0'],
    ['PROJECTOR_LANES', '0'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['RATE_LIMIT_AUTH_PER_MINUTE', 'many'],
    ['BULLMQ_PREFIX', 'oj:prod'],
    ['DATABASE_PREPARED_STATEMENTS', 'on'],
    ['PROJECTOR_METRICS_PORT', '9464x'],
    ['PROJECTOR_METRICS_PORT', '-1'],
  ])('refuses a bad %s (%s) with a message naming the variable', (name, value) => {
    const message = failure({ [name]: value });
    expect(message).toMatch(/^Invalid configuration:\n/);
    expect(message).toContain(`  ${name}: `);
  });

  it("serves a projector's metrics only when PROJECTOR_METRICS_PORT names a port", () => {
    expect(loadConfig(base).PROJECTOR_METRICS_PORT).toBeUndefined();
    expect(loadConfig({ ...base, PROJECTOR_METRICS_PORT: '' }).PROJECTOR_METRICS_PORT).toBeUndefined();
    expect(loadConfig({ ...base, PROJECTOR_METRICS_PORT: '9464' }).PROJECTOR_METRICS_PORT).toBe(9464);
    expect(loadConfig({ ...base, PROJECTOR_METRICS_PORT: '0' }).PROJECTOR_METRICS_PORT).toBe(0);
  });

  it('names every bad variable at once', () => {
    const message = failure({ PORT: 'x', LOG_LEVEL: 'loud' });
    expect(message).toContain('  PORT: ');
    expect(message).toContain('  LOG_LEVEL: ');
  });

  it('requires JWT_SECRET in production instead of generating one', () => {
    const { JWT_SECRET: _unused, ...rest } = base;
    expect(() => loadConfig({ ...rest, NODE_ENV: 'production' })).toThrow('JWT_SECRET: required when NODE_ENV=production');
  });

  it('takes TRUST_PROXY as true, false or addresses/CIDRs, and names it for anything proxy-addr would throw on', () => {
    expect(loadConfig(base).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ ...base, TRUST_PROXY: ' 10.0.0.0/8, 192.168.1.7,loopback, fd00::/8, 172.16.0.0/255.240.0.0' }).TRUST_PROXY).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'loopback',
      'fd00::/8',
      '172.16.0.0/255.240.0.0',
    ]);
    for (const bad of ['yes', '2', '10.0.0.0/33', '10.0.0.1,proxy.local', '::1/129']) {
      expect(failure({ TRUST_PROXY: bad })).toContain(`  TRUST_PROXY: must be true, false, or comma-separated IP addresses/CIDRs (got "${bad}")`);
    }
  });
});
