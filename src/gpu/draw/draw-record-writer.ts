/**
 * Fills a frame's draw records (layout: draw-record.ts): per draw and instance the
 * camera-relative model matrix and its normal matrix, where the instance's palette sits,
 * the draw flags (exact normals, morph targets), the active morph targets and their
 * weights, and where the compute path put its skinned vertices.
 */
import type { ModelInstance } from '../../anim/instance.ts';
import { usesDqPalette } from '../../anim/skinning-method.ts';
import { multiplyMat4 } from '../../math/trs.ts';
import { cameraRelativeModel } from '../frame/camera-relative.ts';
import { DRAW_RECORD_WORDS, DrawRecordWord, MAT3_COLUMN_WORDS } from '../layouts/draw-record.ts';
import { DrawFlag } from '../layouts/bindings.ts';
import type { ModelDraws } from './model-draws.ts';
import { MAX_ACTIVE_MORPH_TARGETS, selectMorphTargets } from '../model/morph-targets.ts';
import { NORMAL_DETERMINANT_EPSILON, paletteHasNonUniformScale } from './skin-normals.ts';

/** An EXT_mesh_gpu_instancing draw's world matrix (node world · instance), reused for every such draw. */
const instanceWorld = new Float64Array(16);
/** A draw's active morph targets (selectMorphTargets' output), reused for every draw. */
const morphTargets = new Uint32Array(MAX_ACTIVE_MORPH_TARGETS);
const morphWeights = new Float32Array(MAX_ACTIVE_MORPH_TARGETS);

/**
 * Writes the records of `count` instances into `modelDraws.records`: draw i of instance k at
 * i × count + k. `placements`: 16 doubles per instance (see Renderer.renderInstances);
 * `eye`: the camera position the matrices are made relative to. `paletteSlots`: where
 * each instance's palettes sit in the upload when it is not instance k's slot k (culled
 * instances of a Crowd uploaded in place). `exactNormals`: the 'exact' normals setting;
 * otherwise a palette with non-uniform scale still takes the exact path. Allocates nothing.
 */
export function writeDrawRecords(
  modelDraws: ModelDraws, instances: readonly ModelInstance[], count: number, placements: Float64Array | undefined,
  eye: ArrayLike<number>, paletteSlots: Int32Array | undefined, exactNormals: boolean,
): void {
  const { records, draws, paletteMatrices, preskinBase, preskinVertices, centerBase } = modelDraws;
  const { meshNodes, skins } = modelDraws.model;
  const exact = modelDraws.exactNormals;
  // DQS and centre-of-rotation normals always take the exact cofactor of the blended stretch: no palette scan.
  const dualQuaternion = usesDqPalette(modelDraws.skinning);
  const f32 = records.f32;
  const u32 = records.u32;
  for (let k = 0; k < count; k++) {
    const instance = instances[k];
    const m = instance.nodeMatrices;
    const { weights, weightOffsets } = instance.pose;
    // Instance k's palettes: slot k of the upload, or where the uploaded (uncompacted) list had it.
    const paletteBase = (paletteSlots ? paletteSlots[k] : k) * paletteMatrices;
    for (let i = 0; i < meshNodes.length; i++) {
      const offset = instance.paletteOffsets[i];
      exact[i] = exactNormals || (!dualQuaternion && offset >= 0
        && paletteHasNonUniformScale(instance.palette, offset, skins[meshNodes[i].skin].joints.length)) ? 1 : 0;
    }
    const po = k * 16;
    for (let i = 0; i < draws.length; i++) {
      const d = draws[i];
      const base = (i * count + k) * DRAW_RECORD_WORDS;
      const o = d.nodeSlot * 16;
      const mo = base + DrawRecordWord.MODEL;
      // model = placement · node world (· glTF instance) − eye, in float64, then rounded (camera-relative.ts).
      if (d.instanceMatrices) {
        multiplyMat4(m, d.instanceMatrices, instanceWorld, o, d.instanceOffset, 0);
        cameraRelativeModel(instanceWorld, 0, placements, po, eye, f32, mo);
      } else {
        cameraRelativeModel(m, o, placements, po, eye, f32, mo);
      }
      // Normal matrix = M⁻ᵀ = cofactor(M) / det; columns b×c, c×a, a×b of the 3×3 (a, b, c its columns).
      const a0 = f32[mo], a1 = f32[mo + 1], a2 = f32[mo + 2];
      const b0 = f32[mo + 4], b1 = f32[mo + 5], b2 = f32[mo + 6];
      const c0 = f32[mo + 8], c1 = f32[mo + 9], c2 = f32[mo + 10];
      const x0 = b1 * c2 - b2 * c1, x1 = b2 * c0 - b0 * c2, x2 = b0 * c1 - b1 * c0;
      const det = a0 * x0 + a1 * x1 + a2 * x2;
      const inv = Math.abs(det) > NORMAL_DETERMINANT_EPSILON ? 1 / det : 1;
      const no = base + DrawRecordWord.NORMAL_MATRIX;
      f32[no] = x0 * inv; f32[no + 1] = x1 * inv; f32[no + 2] = x2 * inv;
      f32[no + MAT3_COLUMN_WORDS] = (c1 * a2 - c2 * a1) * inv;
      f32[no + MAT3_COLUMN_WORDS + 1] = (c2 * a0 - c0 * a2) * inv;
      f32[no + MAT3_COLUMN_WORDS + 2] = (c0 * a1 - c1 * a0) * inv;
      f32[no + 2 * MAT3_COLUMN_WORDS] = (a1 * b2 - a2 * b1) * inv;
      f32[no + 2 * MAT3_COLUMN_WORDS + 1] = (a2 * b0 - a0 * b2) * inv;
      f32[no + 2 * MAT3_COLUMN_WORDS + 2] = (a0 * b1 - a1 * b0) * inv;
      // Every draw of a skinned mesh node carries its palette offset: the skeleton overlay poses joints through any of them.
      const paletteOffset = instance.paletteOffsets[d.meshNode];
      u32[base + DrawRecordWord.PALETTE_OFFSET] = paletteOffset >= 0 ? paletteBase + paletteOffset : 0;
      let flags = d.staticFlags | (d.skinned && exact[d.meshNode] ? DrawFlag.EXACT_NORMALS : 0);
      const p = d.primitive;
      if (p.morphFlags !== 0) {
        // The mesh node's weights (animated by `weights` channels); targets beyond them weigh 0.
        const wo = weightOffsets[d.nodeSlot];
        const active = selectMorphTargets(weights, wo, Math.min(weightOffsets[d.nodeSlot + 1] - wo, p.morphTargets), morphTargets, morphWeights);
        if (active > 0) {
          flags |= p.morphFlags;
          u32[base + DrawRecordWord.MORPH_BASE] = p.morphBase;
          u32[base + DrawRecordWord.MORPH_TARGET_COUNT] = p.morphTargets;
          const wo0 = base + DrawRecordWord.MORPH_WEIGHTS_0, wo1 = base + DrawRecordWord.MORPH_WEIGHTS_1;
          const to = base + DrawRecordWord.MORPH_TARGETS;
          for (let t = 0; t < MAX_ACTIVE_MORPH_TARGETS; t++) {
            const on = t < active;
            f32[t < 4 ? wo0 + t : wo1 + t - 4] = on ? morphWeights[t] : 0;
            if ((t & 1) === 0) u32[to + (t >> 1)] = on ? morphTargets[t] : 0;
            else if (on) u32[to + (t >> 1)] |= morphTargets[t] << 16;
          }
        }
      }
      u32[base + DrawRecordWord.FLAGS] = flags;
      const skinnedBase = preskinBase[i];
      u32[base + DrawRecordWord.SKINNED_BASE] = skinnedBase >= 0 ? k * preskinVertices + skinnedBase : 0;
      u32[base + DrawRecordWord.CENTER_BASE] = centerBase[i];
    }
  }
}
