/**
 * A looping clip's clock, wrapped into [0, duration): the one rule AnimationPlayer, the layer
 * stack and Crowd share (a crowd's instance plays exactly what a player would).
 */

/**
 * `time` wrapped into [0, duration) (0 for a clip without duration): `time % duration`, moved
 * up by one duration when negative. Inside the range it is returned as is — what `%` gives
 * there, without its cost (a crowd wraps every instance's clock every frame).
 */
export function wrapLoopTime(time: number, duration: number): number {
  if (duration <= 0) return 0;
  if (time >= 0 && time < duration) return time;
  const t = time % duration;
  return t < 0 ? t + duration : t;
}
