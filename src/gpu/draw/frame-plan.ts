/**
 * What one pass of a frame draws, decided before anything is encoded. Renderer.renderInstances
 * resolves one per pass — one per frame, or one per chunk of instances when there are more than
 * one storage binding of palettes holds — and then runs it in order: uploads, compute, shadow
 * pass, main pass. The renderer owns one plan and fills it in place, so a frame allocates nothing
 * for it.
 */
import type { ModelInstance } from '../../anim/instance.ts';
import type { SkinningMethod } from '../../anim/skinning-method.ts';
import type { GpuCuller } from './culling-pass.ts';
import type { GpuPaletteSource } from './palette-source.ts';

/**
 * Where a pass's palettes come from. From the instances: `copied` (the drawn ones, in order,
 * through the model's staging array; DqJoint entries for a method that reads them) or `in-place`
 * (back to back where they are, culled ones too: one write, no copy). From a GPU source: `gpu`
 * (bound as they are), `gpu-range` (a chunk's range copied into the model's buffer) or
 * `gpu-converted` (into DqJoint entries by a compute pass, for a method that reads them).
 */
export type PaletteFeed = 'copied' | 'in-place' | 'gpu' | 'gpu-range' | 'gpu-converted';

export class FramePlan {
  // ── The range: instances [first, first + count) of the frame's list. ──
  /** The first instance of this pass in the frame's list, and which chunk it is (0 unchunked). */
  first = 0;
  chunk = 0;
  /** Instances of this pass before culling (0 while nothing can be drawn yet). */
  count = 0;
  /** Whether a pass of the same frame came before this one (keep its colour and depth) or follows it. */
  continues = false;
  follows = false;
  /** This pass's instances and their placements (16 doubles each), before culling. */
  instances: readonly ModelInstance[] = [];
  placements: Float64Array | undefined;

  // ── The palettes: uploaded from the instances, or already on the GPU. ──
  /** The palettes already on the GPU (a GPU pose evaluator's), if the frame has them. */
  source: GpuPaletteSource | undefined;
  /** Where the palettes the pass draws with come from (palette-upload.ts paletteFeed). */
  feed: PaletteFeed = 'copied';

  // ── The visible list, after culling. ──
  /** Culled on the GPU: the culler, whose indirect arguments draw the survivors. */
  gpuCuller: GpuCuller | undefined;
  /** What is drawn: the survivors of CPU culling (nearest first), or every instance. */
  visible: readonly ModelInstance[] = [];
  visibleCount = 0;
  visiblePlacements: Float64Array | undefined;
  /** Where each survivor's palettes sit in an in-place upload (its slot before culling). */
  paletteSlots: Int32Array | undefined;
  /** Instances culled, and drawn, as the stats count them (GPU culling: by the count last read back). */
  culled = 0;
  drawn = 0;
  /** Draw the CPU culler's boxes (DebugView.BOUNDS; not with GPU culling). */
  showBounds = false;

  // ── How it is skinned and which passes run. ──
  /** The frame's skinning method (decided once per frame, Renderer.beginModelFrame). */
  skinning: SkinningMethod = 'linear';
  /** Skinned once by compute for every pass, instead of in each pass's vertex stage. */
  compute = false;
  shadowed = false;

  /** The chunk's own list (chunked frames), kept across frames so no frame reallocates it. */
  private readonly chunkList: ModelInstance[] = [];

  /**
   * Sets the range: `count` instances from `first` of the frame's `total`, the `chunk`-th
   * pass. A chunk of a longer list gets its own list and a view of the placements (the only
   * allocation of a chunked frame).
   */
  setRange(all: readonly ModelInstance[], first: number, count: number, total: number, chunk: number, placements: Float64Array | undefined): void {
    this.first = first;
    this.count = count;
    this.chunk = chunk;
    this.continues = first > 0;
    this.follows = first + count < total;
    if (count === total) {
      this.instances = all;
      this.placements = placements;
      return;
    }
    const list = this.chunkList;
    if (list.length < count) list.length = count;
    for (let k = 0; k < count; k++) list[k] = all[first + k];
    this.instances = list;
    this.placements = placements?.subarray(first * 16, (first + count) * 16);
  }

  /** Whether the frame is drawn in more than one pass. */
  get chunked(): boolean {
    return this.continues || this.follows;
  }

  /** Lets go of the frame's instances (keeping the list's length, so the next frame does not reallocate it). */
  release(): void {
    this.chunkList.fill(undefined as unknown as ModelInstance);
    this.instances = this.visible = this.chunkList;
    this.placements = this.visiblePlacements = undefined;
    this.source = undefined;
    this.gpuCuller = undefined;
    this.paletteSlots = undefined;
  }
}
