import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Redis } from 'ioredis';
import { requireRedisUrl } from '@oj/infra/testing/env';
import type { ProjectorHandle } from '@oj/projections/runtime/projector';
import { createStack, kill, killSpawned, untilLive, MixedLoad, proveNothingLost, spawnProjector, startCatchUpProjector, type Stack } from './harness.ts';

/**
 * Fault: the projector process (BullMQ lanes) is killed with SIGKILL while it applies lane batches,
 * three times under a steady mixed load, and started again each time. Stalled jobs come back to the
 * next worker; every batch is applied in one transaction with its checkpoint, so a batch cut short is
 * applied again whole, and the lineage guard makes the repeat change nothing.
 */
const prefix = `oj-fault-kill-${process.pid}`;
let stack: Stack;
let projector: ProjectorHandle | undefined;
let child: ChildProcess | undefined;

beforeAll(async () => {
  stack = await createStack('fault_projector_kill', { redisUrl: requireRedisUrl(), bullPrefix: prefix });
}, 60_000);

afterAll(async () => {
  if (child) await kill(child);
  await killSpawned();
  await projector?.stop();
  await stack?.close();
  const redis = new Redis(requireRedisUrl());
  const keys = await redis.keys(`${prefix}:*`);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  await redis.quit();
}, 60_000);

describe('projector killed with SIGKILL mid-batch, then restarted', () => {
  it('loses nothing: every accepted command once, read models equal a clean rebuild', async () => {
    const load = new MixedLoad(stack, 17);
    await load.addTraders(6);
    child = spawnProjector(stack);
    await untilLive(stack);
    await load.run(240, 4, async (done) => {
      if (done % 60 === 0 && done < 240) {
        await kill(child!);
        child = spawnProjector(stack);
      }
    });
    await kill(child);
    child = undefined;
    projector = await startCatchUpProjector(stack);
    await proveNothingLost(stack, load, projector);
  }, 300_000);
});
