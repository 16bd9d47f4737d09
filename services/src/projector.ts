import { loadConfigOrExit } from '@oj/infra/config';
import { createRuntime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';
import { warnOfMissingNodeOptions } from './platform/heap-options.ts';

/** Services mode: the projector process (dispatcher and lane workers), scaled by lanes. */
const config = loadConfigOrExit();
const runtime = await createRuntime(config);
warnOfMissingNodeOptions('projector', runtime.deps.logger);
await startBackgroundWorkers(runtime, { projector: true, mail: false });
// PROJECTOR_WORK_LANES (default all) lets several projector processes split the lanes between them;
// the dispatcher is elected among them whatever lanes each works.
runtime.deps.logger.info({ lanes: config.PROJECTOR_LANES, workLanes: config.PROJECTOR_WORK_LANES ?? 'all', mode: config.mode.projector }, 'projector running');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void runtime.close().then(() => process.exit(0)));
}
