/**
 * Palettes already on the GPU (a GPU pose evaluator's): what a frame given them needs to know
 * before the GPU culling and record passes' code (culling-pass.ts, records-pass.ts), which the
 * first such frame imports, is there.
 */
import { PALETTE_MATRIX_BYTES } from '../layouts/bindings.ts';

/**
 * Palettes that are already on the GPU, and how a frame fills them: what
 * `Renderer.renderInstances` takes instead of uploading the instances' palettes. `palettes`:
 * instance k's palette from byte k × paletteMatrices × 64 (mat4x4f, column-major, the layout
 * of the renderer's palette buffer for linear skinning).
 */
export interface GpuPaletteSource {
  readonly palettes: GPUBuffer;
  /** The frame's upload (per-instance state); returns the bytes written (counted in RenderStats.bytesUploaded). */
  writeInstances?(queue: GPUQueue): number;
  /** Encodes the passes that fill `palettes`, into the frame's encoder before culling. */
  encode?(encoder: GPUCommandEncoder): void;
  /**
   * Instance k's model → world matrix (mat4x4f, world space) at byte k × 64, filled by `encode`
   * (GpuPoseEvaluator.placements). When present, GPU-written draw records read it instead of the
   * placements passed to the renderer, which then uploads nothing per instance for them.
   */
  readonly placements?: GPUBuffer;
  /**
   * Instance k's morph weights from float k × (the model's Pose.weights length), filled by
   * `encode` (GpuPoseEvaluator.morphWeights): GPU-written draw records take each instance's
   * active morph targets from them. Without it every instance has the rest weights, and a model
   * whose clips animate weights has its records written on the CPU from the instances' poses.
   */
  readonly morphWeights?: GPUBuffer | undefined;
  /**
   * Instance k's model matrices of the mesh nodes its clips move (movingMeshNodes order) from
   * matrix k × their count, filled by `encode` (GpuPoseEvaluator.meshWorlds): GPU-written
   * records place those meshes (rigid meshes on bones) per instance. Without it such a model's
   * records are written on the CPU from the instances' poses.
   */
  readonly meshWorlds?: GPUBuffer | undefined;
}

/**
 * Throws a RangeError naming the buffer when `source` holds fewer palettes than `instances` (from
 * its instance 0) need: at least one matrix even for a rigid model, as the passes bind an array<mat4x4f>.
 */
export function checkPaletteSource(source: GpuPaletteSource, instances: number, paletteMatrices: number): void {
  const bytes = Math.max(1, instances * paletteMatrices) * PALETTE_MATRIX_BYTES;
  if (source.palettes.size < bytes) {
    throw new RangeError(`Renderer.renderInstances: ${instances} instances need ${bytes} bytes of GPU palettes (at least one matrix), "${source.palettes.label}" holds ${source.palettes.size}`);
  }
}
