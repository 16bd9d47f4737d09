import { afterEach, describe, expect, it, vi } from 'vitest';
import { enqueueDraw, pendingDraws } from './draw-queue.ts';

const task = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
/** Until the queue is empty and its last job's frame and task are over. */
async function drain() {
  for (let i = 0; i < 100 && pendingDraws() > 0; i++) await task();
  await task();
  await task();
}

describe('draw queue', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('runs the jobs in the order they came, none in the task that queued it, one per task', async () => {
    const ran: string[] = [];
    enqueueDraw(() => ran.push('a'));
    enqueueDraw(() => ran.push('b'));
    enqueueDraw(() => ran.push('c'));
    expect(ran).toEqual([]);
    await task();
    expect(ran).toEqual(['a']);
    await task();
    expect(ran).toEqual(['a', 'b']);
    await drain();
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('waits for a frame after each job where there are frames', async () => {
    const frames: (() => void)[] = [];
    vi.stubGlobal('requestAnimationFrame', (run: () => void) => frames.push(run));
    const ran: number[] = [];
    enqueueDraw(() => ran.push(1));
    enqueueDraw(() => ran.push(2));
    await task();
    await task();
    await task();
    // The first chart is created; the second waits for the frame that draws the first.
    expect(ran).toEqual([1]);
    expect(frames).toHaveLength(1);
    frames.shift()!();
    await task();
    expect(ran).toEqual([1, 2]);
    frames.shift()!();
    await drain();
  });

  it('drops a job cancelled before its turn and goes on with the rest', async () => {
    const ran: string[] = [];
    enqueueDraw(() => ran.push('a'));
    const cancel = enqueueDraw(() => ran.push('gone'));
    enqueueDraw(() => ran.push('c'));
    cancel();
    await drain();
    expect(ran).toEqual(['a', 'c']);
    expect(pendingDraws()).toBe(0);
  });

  it('starts again when jobs come after the queue ran dry', async () => {
    const ran: string[] = [];
    enqueueDraw(() => ran.push('first'));
    await drain();
    enqueueDraw(() => ran.push('later'));
    await drain();
    expect(ran).toEqual(['first', 'later']);
  });
});
