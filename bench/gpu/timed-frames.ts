/**
 * Frame timing and the crowd grid for the Dawn benches (skin-paths.ts, mtoon-bench.ts, pbr-extensions.ts): on SwiftShader a frame's
 * time is the wall time from encoding it to `onSubmittedWorkDone`, which is all of its GPU work.
 */

/** The middle value of `xs` (the upper one of an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * One warm-up frame (pipelines built, buffers sized), not measured; then `frames` frames, each
 * after `advance()` (the pose moves on), timed from `draw()` to the queue's completion.
 * Returns each frame's milliseconds.
 */
export async function timeFrames(device: GPUDevice, frames: number, draw: () => void, advance: () => void): Promise<number[]> {
  draw();
  await device.queue.onSubmittedWorkDone();
  const times: number[] = [];
  for (let f = 0; f < frames; f++) {
    advance();
    const started = performance.now();
    draw();
    await device.queue.onSubmittedWorkDone();
    times.push(performance.now() - started);
  }
  return times;
}

/**
 * Placements of `count` characters on a square grid in the ground plane, `spacing` apart along X
 * and Z (row-major from the origin): the Dawn benches' crowd layout. `side` is the grid's width.
 */
export function gridPlacements(count: number, spacing: number): { side: number; placements: Float64Array } {
  const side = Math.ceil(Math.sqrt(count));
  const placements = new Float64Array(count * 16);
  for (let k = 0; k < count; k++) {
    placements.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, (k % side) * spacing, 0, Math.floor(k / side) * spacing, 1], k * 16);
  }
  return { side, placements };
}
