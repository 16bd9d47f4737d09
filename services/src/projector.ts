import { loadConfig } from '@oj/infra/config';
import { createRuntime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';

/** Services mode: the projector process (dispatcher and lane workers), scaled by lanes. */
const config = loadConfig();
const runtime = await createRuntime(config);
await startBackgroundWorkers(runtime, { projector: true, mail: false });
runtime.deps.logger.info({ lanes: config.PROJECTOR_LANES, mode: config.mode.projector }, 'projector running');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void runtime.close().then(() => process.exit(0)));
}
