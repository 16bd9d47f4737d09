/**
 * Charts are drawn one at a time, one per animation frame, in the order they were mounted.
 *
 * A page of charts (the dashboard has fifteen) mounted in one React commit created every ECharts instance
 * in that commit, and ECharts drew them all in the frame after it: on two slow cores a third of a second in
 * which the page took no input and showed none of the figures it already had. Queued, the page paints
 * with the charts' boxes in place, then each chart is created in a task of its own and drawn in the frame
 * after it (`lazyUpdate`), so a click or a key is handled between two charts, not after all of them.
 * React mounts top to bottom, so the charts a trader sees first are drawn first.
 */
type Job = () => void;

const queue: Job[] = [];
let running = false;

const nextTask = (run: () => void) => setTimeout(run, 0);
/** After the frame that draws what the last job created (no frames without a window: a task). */
const afterNextFrame = (run: () => void) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => nextTask(run)) : nextTask(run));

function pump(): void {
  const job = queue.shift();
  if (!job) {
    running = false;
    return;
  }
  try {
    job();
  } finally {
    afterNextFrame(pump);
  }
}

/**
 * Runs `job` in its turn, in a task after the current one. Returns a cancel for a chart unmounted before
 * its turn (its job is dropped and the rest move up).
 */
export function enqueueDraw(job: Job): () => void {
  queue.push(job);
  if (!running) {
    running = true;
    nextTask(pump);
  }
  return () => {
    const at = queue.indexOf(job);
    if (at >= 0) queue.splice(at, 1);
  };
}

/** Jobs waiting for their turn (for tests). */
export const pendingDraws = () => queue.length;
