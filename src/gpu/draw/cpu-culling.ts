/**
 * Per-frame frustum culling of model instances by their skinned bounds (issue #6).
 *
 * Each instance's world-space box comes from `SkinnedBoundsJob` (src/anim/skinned-bounds.ts:
 * per-joint boxes built at load, carried through the palette every frame; no vertex visited,
 * nothing read back from the GPU), then through the instance's placement (Arvo's method,
 * so the box stays conservative). Boxes wholly outside one frustum plane are culled; the
 * rest are compacted into a list nearest first (by the view depth of the box centre), so
 * the renderer's one instanced draw per primitive covers only visible instances and
 * opaque surfaces go front to back, letting the depth test reject hidden fragments early.
 *
 * Allocates only when the instance count grows beyond every earlier frame's.
 */
import type { ModelInstance } from '../../anim/instance.ts';
import { createSkinnedBounds, SkinnedBoundsJob, type SkinnedBounds } from '../../anim/skinned-bounds.ts';
import type { Model } from '../../gltf/model.ts';
import { FRUSTUM_FLOATS, frustumIntersectsBox, frustumPlanes } from '../../math/frustum.ts';
import type { SkinningMethod } from '../../anim/skinning-method.ts';
import { centerOfRotationBounds } from '../../skin/centers-of-rotation/bounds.ts';

/** Floats per world box in `InstanceCuller.boxes`: min x y z, max x y z. */
export const WORLD_BOX_FLOATS = 6;

const WORLD_ORIGIN = new Float64Array(3);

export class InstanceCuller {
  readonly bounds: SkinnedBounds;
  /** The frustum of the last `run`, FRUSTUM_FLOATS (src/math/frustum.ts). */
  readonly planes = new Float32Array(FRUSTUM_FLOATS);
  /** The instances kept by the last `run` (`visibleCount` of them), nearest first when sorted. */
  instances: ModelInstance[] = [];
  /** Their placements, 16 doubles each in the same order (when `run` was given placements), kept in double precision. */
  placements = new Float64Array(0);
  /** Their world boxes relative to `run`'s `origin` (the eye: what the debug overlay draws), WORLD_BOX_FLOATS each in the same order. */
  boxes = new Float32Array(0);
  visibleCount = 0;
  /** Per kept instance, its index in the list `run` was given. */
  kept = new Int32Array(0);
  /** Instances the last `run` dropped. */
  culledCount = 0;

  private capacity = 0;
  private job: SkinnedBoundsJob | undefined;
  /** Over bounds built from centres of rotation: made on the first run with that method. */
  private centerJob: SkinnedBoundsJob | undefined;
  private readonly min = new Float32Array(3);
  private readonly max = new Float32Array(3);
  /** Per input instance: its world box; per kept entry: input index and view-space depth key. */
  private allBoxes = new Float32Array(0);
  private order = new Int32Array(0);
  private keys = new Float64Array(0);

  constructor(readonly model: Model) {
    this.bounds = createSkinnedBounds(model);
  }

  /**
   * Bounds every instance, culls (when `cull`) and compacts. `viewProjection` and `view`:
   * the frame's column-major matrices; `placements`: 16 doubles per instance applied over
   * its node matrices (as Renderer.renderInstances takes them), or undefined. `sort`: order
   * the kept instances nearest first (else input order). `skinning`: the method the
   * surfaces are skinned with, which the bounds must contain. `origin`: subtracted from
   * the kept boxes (the renderer draws camera-relative; default the world origin).
   */
  run(
    viewProjection: Float32Array, view: Float32Array, instances: readonly ModelInstance[], count: number,
    placements: Float64Array | undefined, skinning: SkinningMethod, cull = true, sort = true,
    origin: ArrayLike<number> = WORLD_ORIGIN,
  ): void {
    this.ensureCapacity(count);
    frustumPlanes(viewProjection, this.planes);
    const { min, max, allBoxes, order, keys, planes } = this;
    const centers = skinning === 'center-of-rotation';
    let job = centers ? this.centerJob : this.job;
    let visible = 0;
    for (let k = 0; k < count; k++) {
      const instance = instances[k];
      if (!job && centers) job = this.centerJob = new SkinnedBoundsJob(centerOfRotationBounds(this.model), instance, min, max);
      if (!job) job = this.job = new SkinnedBoundsJob(this.bounds, instance, min, max);
      job.instance = instance;
      job.skinning = skinning;
      job.run();
      const o = k * WORLD_BOX_FLOATS;
      if (placements) {
        placeBox(placements, k * 16, min, max, allBoxes, o);
      } else {
        allBoxes[o] = min[0]; allBoxes[o + 1] = min[1]; allBoxes[o + 2] = min[2];
        allBoxes[o + 3] = max[0]; allBoxes[o + 4] = max[1]; allBoxes[o + 5] = max[2];
      }
      if (cull && !frustumIntersectsBox(planes, allBoxes, allBoxes, o, o + 3)) continue;
      const cx = (allBoxes[o] + allBoxes[o + 3]) / 2, cy = (allBoxes[o + 1] + allBoxes[o + 4]) / 2, cz = (allBoxes[o + 2] + allBoxes[o + 5]) / 2;
      // View-space z is negative in front of the eye: −z grows with distance. (A NaN key
      // compares false, so the sort leaves it in place; no `isNaN ? Infinity : depth` here:
      // V8 boxes the double such a mixed phi produces, an allocation per instance.)
      order[visible] = k;
      keys[visible] = -(view[2] * cx + view[6] * cy + view[10] * cz + view[14]);
      visible++;
    }
    if (sort) {
      // Insertion sort, stable: a grid of instances often arrives nearly sorted.
      for (let i = 1; i < visible; i++) {
        const k = order[i], key = keys[i];
        let j = i - 1;
        while (j >= 0 && keys[j] > key) {
          order[j + 1] = order[j];
          keys[j + 1] = keys[j];
          j--;
        }
        order[j + 1] = k;
        keys[j + 1] = key;
      }
    }
    const out = this.instances, outPlacements = this.placements, boxes = this.boxes;
    for (let i = 0; i < visible; i++) {
      const k = order[i];
      this.kept[i] = k;
      out[i] = instances[k];
      if (placements) for (let c = 0; c < 16; c++) outPlacements[i * 16 + c] = placements[k * 16 + c];
      for (let c = 0; c < WORLD_BOX_FLOATS; c++) boxes[i * WORLD_BOX_FLOATS + c] = allBoxes[k * WORLD_BOX_FLOATS + c] - origin[c % 3];
    }
    this.visibleCount = visible;
    this.culledCount = count - visible;
  }

  private ensureCapacity(count: number): void {
    if (count <= this.capacity) return;
    const capacity = Math.max(count, this.capacity * 2);
    this.instances.length = capacity;
    this.placements = new Float64Array(capacity * 16);
    this.boxes = new Float32Array(capacity * WORLD_BOX_FLOATS);
    this.allBoxes = new Float32Array(capacity * WORLD_BOX_FLOATS);
    this.order = new Int32Array(capacity);
    this.kept = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
    this.capacity = capacity;
  }
}

/**
 * out[o…o+6] = the AABB of box min…max under the affine part of the column-major matrix
 * at m[mo…] (Arvo: centre by the matrix, half extent by its absolute 3×3).
 */
function placeBox(m: Float64Array, mo: number, min: Float32Array, max: Float32Array, out: Float32Array, o: number): void {
  if (!(min[0] <= max[0] && min[1] <= max[1] && min[2] <= max[2])) {
    // Empty (no vertices) stays empty; NaN stays NaN (never culled).
    for (let c = 0; c < 3; c++) { out[o + c] = min[c]; out[o + 3 + c] = max[c]; }
    return;
  }
  const cx = (min[0] + max[0]) / 2, cy = (min[1] + max[1]) / 2, cz = (min[2] + max[2]) / 2;
  const hx = (max[0] - min[0]) / 2, hy = (max[1] - min[1]) / 2, hz = (max[2] - min[2]) / 2;
  for (let r = 0; r < 3; r++) {
    const a = m[mo + r], b = m[mo + 4 + r], c = m[mo + 8 + r];
    const centre = a * cx + b * cy + c * cz + m[mo + 12 + r];
    const half = Math.abs(a) * hx + Math.abs(b) * hy + Math.abs(c) * hz;
    // float32 storage: round outwards by a relative 2⁻²² so the box never shrinks.
    const margin = (Math.abs(centre) + half) * 2 ** -22;
    out[o + r] = centre - half - margin;
    out[o + 3 + r] = centre + half + margin;
  }
}
