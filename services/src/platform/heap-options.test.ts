import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, nodeOptionsOf } from '@oj/infra/testing/processes';
import { SERVICE_NODE_OPTIONS, missingNodeOptions, type Service } from './heap-options.ts';

const commandOf = (entry: Service) => ['node', ...SERVICE_NODE_OPTIONS[entry], `services/src/${entry}.ts`];

/** The command of a service of the compose file. */
function composeCommand(compose: string, service: string): unknown {
  const body = new RegExp(`^ {2}${service}:\\n((?: {4}.*\\n|\\n)*)`, 'm').exec(compose)?.[1] ?? '';
  const command = /^ {4}command: (\[.*\])$/m.exec(body)?.[1];
  return command && JSON.parse(command);
}

describe("the service processes' heap settings", () => {
  it('are on every command that starts a gateway or a projector: the npm scripts (and so tests and benches), the compose file, the Dockerfile', () => {
    expect(nodeOptionsOf('gateway')).toEqual([...SERVICE_NODE_OPTIONS.gateway]);
    expect(nodeOptionsOf('projector')).toEqual([...SERVICE_NODE_OPTIONS.projector]);
    const compose = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    expect(composeCommand(compose, 'gateway')).toEqual(commandOf('gateway'));
    expect(composeCommand(compose, 'projector')).toEqual(commandOf('projector'));
    expect(composeCommand(compose, 'projector-b')).toEqual(commandOf('projector'));
    const dockerfile = readFileSync(join(REPO_ROOT, 'infra/docker/Dockerfile'), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd && JSON.parse(cmd)).toEqual(commandOf('gateway'));
  });

  it('a process started without them is told which are missing; another value counts as set', () => {
    expect(missingNodeOptions('gateway', [])).toEqual([...SERVICE_NODE_OPTIONS.gateway]);
    expect(missingNodeOptions('gateway', [...SERVICE_NODE_OPTIONS.gateway])).toEqual([]);
    expect(missingNodeOptions('gateway', ['--heap_growing_percent=50'], '--max-semi-space-size=32')).toEqual([]);
    expect(missingNodeOptions('gateway', ['--heap-growing-percent=20'])).toEqual(['--max-semi-space-size=16']);
    expect(missingNodeOptions('projector', [])).toEqual(['--max-semi-space-size=16', '--heap-growing-percent=50']);
    expect(missingNodeOptions('projector', ['--max-semi-space-size=16'])).toEqual(['--heap-growing-percent=50']);
    expect(missingNodeOptions('projector', ['--max-semi-space-size=16', '--heap-growing-percent=50'])).toEqual([]);
  });

  it("the gateway's hold the heap near its live size under churn, where V8 alone lets it grow to several times that", () => {
    // About 30 MB kept, and 800 MB of objects that live long enough to reach the old generation and die
    // there: the heap's committed size at its largest, with and without the settings.
    const churn = `
      const v8 = require('node:v8');
      const live = []; for (let i = 0; i < 300000; i++) live.push({ a: i, b: 'x' + i, c: [i] });
      let medium = []; let largest = 0;
      for (let round = 0; round < 4000; round++) {
        for (let i = 0; i < 2000; i++) medium.push({ a: i, b: 'y' + i, c: [i, i] });
        if (medium.length > 100000) medium = [];
        largest = Math.max(largest, v8.getHeapStatistics().total_heap_size);
      }
      process.stdout.write(String(largest + live.length * 0));`;
    // Measured with V8's garbage collector on the main thread only (`--single-threaded-gc`), so that the
    // figure is the settings' and not the machine's: marking concurrently, a marking thread starved by the
    // rest of the suite let the heap with the settings grow from about 155 MB to 220 to 229 MB (0.60 to
    // 0.63 of the heap without them, against 0.42 on an idle machine). Single-threaded, the figures do not
    // move with load (2 cores, 29 November 2026: 221 to 223 MB with, 409 to 412 MB without, idle or with
    // both cores busy).
    const largestHeap = (options: readonly string[]) => Number(execFileSync(process.execPath, ['--single-threaded-gc', ...options, '-e', churn], { encoding: 'utf8' }));
    const withSettings = largestHeap(SERVICE_NODE_OPTIONS.gateway);
    const without = largestHeap([]);
    expect(withSettings, JSON.stringify({ withSettings, without })).toBeLessThan(0.6 * without);
  }, 60_000);
});
