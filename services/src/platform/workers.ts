import type { Runtime } from './runtime.ts';

/**
 * Starts the background work a process role runs and registers it for shutdown.
 * The projector (projections/runtime) and the mail outbox worker (mail/) plug in here.
 */
export async function startBackgroundWorkers(_runtime: Runtime, _which: { projector: boolean; mail: boolean }): Promise<void> {
  // Filled in by the projector runtime and the mail outbox.
}
