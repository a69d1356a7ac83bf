/**
 * The spring bones' collider culling kept over frames: for each joint, the list positions of the
 * colliders it might touch (a bit set, lists of up to 32), found once with a margin and reused
 * while the joint and the colliders have moved less than that margin, instead of a reach test
 * against every collider of its list each frame.
 *
 * Exact, not a guess. When the set is built, every collider left out is farther from the joint
 * than its reach + GROWTH × the joint's bound (hit radius + bone length) + `budget`. Positions are
 * compared after taking away the model's world translation (so a model walking straight on
 * moves nothing here): the joint's distance from where its set was built (a straight line, not the
 * path it took: hair swinging to and fro keeps its set) and `drift` (the largest any collider moved
 * or grew its reach, summed over runs) say how far things have moved since. While the two together
 * stay under `budget` (less a rounding allowance) and the joint's bound under GROWTH × what it was, no
 * collider left out can be within its reach: the exact test would have skipped it too, so the
 * tail is pushed by the same colliders, in the same list order, as without the culling. Colliders
 * a joint moves and those with no finite reach (planes, inside shapes) are always in the set.
 *
 * Sized at construction; `beginRun`, `candidates` and `built` allocate nothing.
 */
export class ColliderCull {
  /** The candidate set `candidates` found (bit i: list position first + i). */
  found = 0;
  /** Per joint: the set, the budget it was built with, the drift then, and GROWTH × its bound then. */
  private readonly set: Int32Array;
  private readonly budget: Float64Array;
  private readonly base: Float64Array;
  private readonly bound: Float64Array;
  /** Per joint: where its set was built (translation taken away). */
  private readonly builtAt: Float64Array;
  /** Per collider: centre (translation taken away) and reach at the last run. */
  private readonly colliderLast: Float64Array;
  private drift = 0;
  /** Allowance for rounding in positions of this run's magnitude. */
  private slack = 0;
  private fresh = true;

  constructor(
    private readonly colliderCount: number,
    /** Per joint, its colliders are `list[start[j]] … list[start[j + 1] − 1]`. */
    private readonly start: Int32Array,
    private readonly list: Int32Array,
    /** Per collider: 1 when always a candidate (moved by a joint, or no finite reach). */
    private readonly always: Uint8Array,
  ) {
    const jointCount = start.length - 1;
    this.set = new Int32Array(jointCount);
    this.budget = new Float64Array(jointCount).fill(NaN);
    this.base = new Float64Array(jointCount);
    this.bound = new Float64Array(jointCount);
    this.builtAt = new Float64Array(jointCount * 3).fill(NaN);
    this.colliderLast = new Float64Array(colliderCount * 4).fill(NaN);
  }

  /** Forget every set (after a reset: everything may have jumped). */
  forget(): void {
    this.fresh = true;
  }

  /**
   * Once per run, the colliders placed (`spheres`: centre and reach, 4 each, world space) and the
   * model's world matrix (its translation, 12..14): how far the colliders drifted since the last run.
   */
  beginRun(spheres: Float64Array, world: Float64Array): void {
    const ox = world[12], oy = world[13], oz = world[14];
    this.slack = ROUNDING * (1 + Math.abs(ox) + Math.abs(oy) + Math.abs(oz));
    if (this.fresh) {
      this.fresh = false;
      this.budget.fill(NaN);
    }
    let moveSq = 0, grow = 0;
    const L = this.colliderLast, always = this.always;
    for (let c = 0; c < this.colliderCount; c++) {
      if (always[c] === 1) continue;
      const q = c * 4;
      const x = spheres[q] - ox, y = spheres[q + 1] - oy, z = spheres[q + 2] - oz, r = spheres[q + 3];
      const dx = x - L[q], dy = y - L[q + 1], dz = z - L[q + 2];
      const d = dx * dx + dy * dy + dz * dz;
      // NaN (the first run) makes the drift NaN: every set is rebuilt.
      if (!(d <= moveSq)) moveSq = d;
      const g = r - L[q + 3];
      if (!(g <= grow)) grow = g;
      L[q] = x; L[q + 1] = y; L[q + 2] = z; L[q + 3] = r;
    }
    this.drift += Math.sqrt(moveSq) + grow;
    if (!(this.drift === this.drift)) {
      this.drift = 0;
      this.budget.fill(NaN);
    }
  }

  /**
   * Joint j at `head` (world position 0..2; 4: its bound, hit radius + bone length), the model at
   * `world`: true and `found` set to its candidates when its set still holds; false when the
   * whole list must be tested (a long list, or a set out of date: then call `built`).
   */
  candidates(j: number, head: Float64Array, world: Float64Array): boolean {
    const o = j * 3, at = this.builtAt;
    // What the joint may still move before a collider left out could reach it: the budget less
    // the colliders' drift since (squared below: no root). NaN (no set) fails every comparison.
    const room = this.budget[j] - (this.drift - this.base[j]) - this.slack;
    if (room >= 0 && head[4] <= this.bound[j]) {
      const dx = head[0] - world[12] - at[o], dy = head[1] - world[13] - at[o + 1], dz = head[2] - world[14] - at[o + 2];
      if (dx * dx + dy * dy + dz * dz <= room * room) {
        this.found = this.set[j];
        return true;
      }
    }
    this.budget[j] = NaN;
    return false;
  }

  /**
   * When `candidates` said no, for joint j at `head`, the model at `world` (as for `candidates`):
   * builds its set, the colliders (world reach spheres in `spheres`) within GROWTH × its bound + a
   * margin of their reach, and sets `found` to it; true. False when no set can be built (a list
   * over 32, a bound not ≥ 0): the whole list must be tested.
   */
  built(j: number, head: Float64Array, spheres: Float64Array, world: Float64Array): boolean {
    const first = this.start[j], end = this.start[j + 1], bound = head[4];
    if (end - first > 32 || !(bound >= 0)) return false;
    const grown = GROWTH * bound, margin = MARGIN * bound + this.slack;
    const px = head[0], py = head[1], pz = head[2];
    let set = 0, budget = Infinity;
    for (let i = first; i < end; i++) {
      const c = this.list[i];
      if (this.always[c] === 1) {
        set |= 1 << (i - first);
        continue;
      }
      const q = c * 4, reach = spheres[q + 3] + grown;
      const ex = px - spheres[q], ey = py - spheres[q + 1], ez = pz - spheres[q + 2];
      const dSq = ex * ex + ey * ey + ez * ez;
      // Within reach + margin (squared, no root; NaN joins the set), or, outside it, a root only
      // for a collider that may be nearer than the budget so far.
      const near = reach + margin;
      if (!(dSq >= near * near)) {
        set |= 1 << (i - first);
        continue;
      }
      const far = budget + reach;
      if (dSq >= far * far) continue;
      const room = Math.sqrt(dSq) - spheres[q + 3] - grown;
      if (room < margin || !(room === room)) set |= 1 << (i - first);
      else if (room < budget) budget = room;
    }
    this.set[j] = set;
    this.found = set;
    this.budget[j] = budget;
    this.base[j] = this.drift;
    this.bound[j] = grown;
    const o = j * 3;
    this.builtAt[o] = px - world[12]; this.builtAt[o + 1] = py - world[13]; this.builtAt[o + 2] = pz - world[14];
    return true;
  }
}

/**
 * A joint's set is built for bounds up to this many times its bound then. With MARGIN, the
 * trade between a loose set (more reach tests every frame) and a tight one (more rebuilds, a
 * root per collider each): on the bench avatar 1.1 and 0.5 halve the reach tests of 1.25 and 1
 * (713 → 372 a frame) for 2.5 more rebuilds of 100 joints, ~3% of the springs' time.
 */
const GROWTH = 1.1;
/** How much farther than its reach a collider is still a candidate, in joint bounds. */
const MARGIN = 0.5;
/** Relative rounding allowance for positions (double precision is ~1e-16). */
const ROUNDING = 1e-9;
