/**
 * A looping clip's clock, wrapped into [0, duration): the one rule AnimationPlayer, the layer
 * stack and Crowd share (a crowd's instance plays exactly what a player would).
 */

/**
 * `times[i]` wrapped in place into [0, `durations[d]`) (0 for a clip without duration):
 * `time % duration`, moved up by one duration when negative. Inside the range it is left as
 * is — what `%` gives there, without its cost (a crowd wraps every instance's clock every
 * frame). The per-frame form: it takes and returns no double, so a call V8 did not inline
 * boxes nothing (a double passed to or returned from such a call is a heap allocation, and
 * whether a call inlines depends on the compile state: it did not in a CI run).
 */
export function wrapLoopTimeIn(times: Float64Array, i: number, durations: Float64Array, d: number): void {
  const duration = durations[d];
  const time = times[i];
  if (duration <= 0) times[i] = 0;
  else if (!(time >= 0 && time < duration)) {
    const t = time % duration;
    times[i] = t < 0 ? t + duration : t;
  }
}

const timeScratch = new Float64Array(1);
const durationScratch = new Float64Array(1);

/** `time` wrapped into [0, duration) by wrapLoopTimeIn, for a caller outside the frame path. */
export function wrapLoopTime(time: number, duration: number): number {
  timeScratch[0] = time;
  durationScratch[0] = duration;
  wrapLoopTimeIn(timeScratch, 0, durationScratch, 0);
  return timeScratch[0];
}
