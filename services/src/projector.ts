import { loadConfigOrExit } from '@oj/infra/config';
import { createRuntime } from './platform/runtime.ts';
import { startBackgroundWorkers } from './platform/workers.ts';
import { SERVICE_NODE_OPTIONS, missingNodeOptions } from './platform/heap-options.ts';

/** Services mode: the projector process (dispatcher and lane workers), scaled by lanes. */
const config = loadConfigOrExit();
const runtime = await createRuntime(config);
// Started some other way than `npm run projector`: the process runs, but its resident memory grows for
// minutes under load (platform/heap-options.ts).
const missing = missingNodeOptions('projector', process.execArgv, process.env.NODE_OPTIONS);
if (missing.length > 0) {
  runtime.deps.logger.warn(
    { missing, expected: SERVICE_NODE_OPTIONS.projector },
    `projector started without Node options ${missing.join(' ')} (npm run projector gives them; see docs/operations.md, "Gateway and projector memory")`,
  );
}
await startBackgroundWorkers(runtime, { projector: true, mail: false });
// PROJECTOR_WORK_LANES (default all) lets several projector processes split the lanes between them;
// the dispatcher is elected among them whatever lanes each works.
runtime.deps.logger.info({ lanes: config.PROJECTOR_LANES, workLanes: config.PROJECTOR_WORK_LANES ?? 'all', mode: config.mode.projector }, 'projector running');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void runtime.close().then(() => process.exit(0)));
}
