/**
 * The skinned-bounds sweep: every clip of every shared asset and built-in model, sampled at
 * SAMPLES_PER_CLIP times, with each CPU-skinned vertex checked against the job's boxes and
 * the boxes' volumes compared with the tight box. Shared by the test, which asserts on it,
 * and the bench (`npm run bench -- --skinned-bounds`), which reports it. Imports no test
 * runner, so the bench can run it under plain Node.
 */
import { dqPaletteFromMatrices } from '../../src/anim/dq-palette.ts';
import { createModelInstance, updateModelInstance, type ModelInstance } from '../../src/anim/instance.ts';
import { createSkinnedBounds, SkinnedBoundsJob } from '../../src/anim/skinned-bounds.ts';
import { buildBuiltinGlb, builtinModelNames } from '../../src/builtin/index.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model, Primitive } from '../../src/gltf/model.ts';
import { skinPrimitive, type SkinnedVertices } from '../../src/skin/cpu-skin.ts';
import { centerOfRotationBounds } from '../../src/skin/centers-of-rotation/bounds.ts';
import { centersOf } from '../../src/skin/centers-of-rotation/centers.ts';
import { skinPrimitiveCor } from '../../src/skin/cor.ts';
import { skinPrimitiveDq } from '../../src/skin/dqs.ts';
import { applyMorphTargets, type MorphedVertices } from '../../src/skin/morph.ts';
import { sharedAssets } from '../support/assets.ts';

/** Plain numbers of a typed array range, for toEqual and messages. */
export const values = (a: ArrayLike<number>, from = 0, to = a.length): number[] => Array.from(a).slice(from, to);

/** A grouped (default) job with mesh-node boxes, on a new instance unless one is given. */
export function newJob(model: Model, instance = createModelInstance(model)) {
  const bounds = createSkinnedBounds(model);
  const job = new SkinnedBoundsJob(bounds, instance, new Float32Array(3), new Float32Array(3), new Float32Array(model.meshNodes.length * 6));
  return { bounds, instance, job };
}

/** Vertices as the renderer draws them, in world space, with any skinning method. */
class WorldVertices {
  private readonly dq: Float32Array;
  /**
   * Each primitive's output arrays, made once, not per frame: the morph writes every value when a
   * target is active (else the primitive's own are used), the skinning writes every position, and
   * only positions are read (so none are made for normals or tangents).
   */
  private readonly scratch = new Map<Primitive, { morphed: MorphedVertices; skinned: SkinnedVertices }>();

  constructor(readonly instance: ModelInstance) {
    this.dq = new Float32Array(instance.palette.length);
  }

  /** Calls `visit(meshNodeIndex, x, y, z)` for every vertex of every mesh node. */
  each(method: 'linear' | 'dual-quaternion' | 'center-of-rotation', visit: (i: number, x: number, y: number, z: number) => void): void {
    const { model, pose, nodeMatrices: m, palette, paletteOffsets } = this.instance;
    if (method !== 'linear') dqPaletteFromMatrices(palette, palette.length / 16, this.dq);
    model.meshNodes.forEach((mn, i) => {
      const slot = model.hierarchy.slotOf[mn.node];
      const o = slot * 16;
      const offset = paletteOffsets[i];
      for (const prim of model.meshes[mn.mesh].primitives) {
        let scratch = this.scratch.get(prim);
        if (!scratch) {
          scratch = {
            morphed: { positions: new Float32Array(prim.positions.length), normals: undefined, tangents: undefined },
            skinned: { positions: new Float64Array(prim.vertexCount * 3), normals: undefined, tangents: undefined },
          };
          this.scratch.set(prim, scratch);
        }
        // glTF order: morph, then skin, then the node's world matrix.
        const morphed = applyMorphTargets(prim, pose.weights, pose.weightOffsets[slot], pose.weightOffsets[slot + 1] - pose.weightOffsets[slot], scratch.morphed);
        let p: ArrayLike<number> = morphed.positions;
        if (offset >= 0 && prim.influences > 0) {
          const out = scratch.skinned;
          const source = { positions: morphed.positions };
          p = method === 'linear' ? skinPrimitive(prim, palette, out, offset, source).positions
            : method === 'dual-quaternion' ? skinPrimitiveDq(prim, this.dq, out, offset, source).positions
              : skinPrimitiveCor(prim, this.dq, centersOf(prim).centers, out, offset, source).positions;
        }
        for (let v = 0; v < prim.vertexCount; v++) {
          const x = p[v * 3], y = p[v * 3 + 1], z = p[v * 3 + 2];
          visit(i,
            m[o] * x + m[o + 4] * y + m[o + 8] * z + m[o + 12],
            m[o + 1] * x + m[o + 5] * y + m[o + 9] * z + m[o + 13],
            m[o + 2] * x + m[o + 6] * y + m[o + 10] * z + m[o + 14]);
        }
      }
    });
  }
}

export interface SweepCase { name: string; load: () => Promise<Model> }
export const sweepCases: SweepCase[] = [
  ...sharedAssets().map((a) => ({ name: a.name, load: () => loadGltfFile(a.path) })),
  ...builtinModelNames().map((n) => ({ name: `builtin:${n}`, load: () => loadGltf(buildBuiltinGlb(n), { name: `builtin:${n}` }) })),
];

/** Volume ratio of two boxes over the axes where the tight one has extent (a flat mesh has area, not volume). */
function volumeRatio(bMin: ArrayLike<number>, bMax: ArrayLike<number>, tMin: number[], tMax: number[]): number {
  const diagonal = Math.hypot(tMax[0] - tMin[0], tMax[1] - tMin[1], tMax[2] - tMin[2]);
  let ratio = 1;
  for (let c = 0; c < 3; c++) {
    const tight = tMax[c] - tMin[c];
    if (tight > 1e-6 * diagonal) ratio *= (bMax[c] - bMin[c]) / tight;
  }
  return ratio;
}

export interface SweepResult {
  frames: number;
  /** Volume over the tight box's, for the grouped (default) and coarse bounds. */
  meanRatio: number;
  maxRatio: number;
  meanCoarseRatio: number;
  /** Worst escape of a DQS vertex from the linear bound, as a fraction of the bound's largest world extent. */
  dqsEscape: number;
  /** DQS vertex coordinates outside the dual-quaternion bound, and that bound's mean volume ratio. */
  dqsOutside: number;
  meanDqsRatio: number;
  /** Centre-of-rotation vertex coordinates outside their bound (a proof: must be 0), and its mean volume ratio. */
  corOutside: number;
  meanCorRatio: number;
}

export const SAMPLES_PER_CLIP = 10;

/**
 * Runs the sweep on `model`. `onEscape` hears of every linearly skinned vertex outside its
 * mesh node's box or the instance's (the test fails on the first; the bench counts them).
 */
export async function sweep(model: Model, onEscape: (message: string) => void): Promise<SweepResult> {
  const { instance, job } = newJob(model);
  const another = () => new SkinnedBoundsJob(job.bounds, instance, new Float32Array(3), new Float32Array(3), new Float32Array(model.meshNodes.length * 6));
  const coarse = another();
  coarse.coarse = true;
  const dqJob = another();
  dqJob.skinning = 'dual-quaternion';
  const corJob = new SkinnedBoundsJob(centerOfRotationBounds(model), instance, new Float32Array(3), new Float32Array(3), new Float32Array(model.meshNodes.length * 6));
  corJob.skinning = 'center-of-rotation';
  const world = new WorldVertices(instance);
  const result: SweepResult = { frames: 0, meanRatio: 0, maxRatio: 0, meanCoarseRatio: 0, dqsEscape: 0, dqsOutside: 0, meanDqsRatio: 0, corOutside: 0, meanCorRatio: 0 };
  const clips = model.animations.length > 0 ? model.animations.map((_, c) => c) : [-1];
  for (const clip of clips) {
    const duration = clip >= 0 ? model.animations[clip].duration : 0;
    for (let k = 0; k < SAMPLES_PER_CLIP; k++) {
      const time = (duration * k) / (SAMPLES_PER_CLIP - 1);
      updateModelInstance(instance, clip, time);
      job.run();
      coarse.run();
      dqJob.run();
      corJob.run();
      const tMin = [Infinity, Infinity, Infinity], tMax = [-Infinity, -Infinity, -Infinity];
      world.each('linear', (i, x, y, z) => {
        const p = [x, y, z];
        for (const j of [job, coarse]) {
          const nodes = j.outMeshNodes!;
          for (let c = 0; c < 3; c++) {
            // THE requirement: every linearly skinned vertex inside its mesh node's box and the instance's.
            if (!(p[c] >= nodes[i * 6 + c] && p[c] <= nodes[i * 6 + 3 + c] && p[c] >= j.outMin[c] && p[c] <= j.outMax[c])) {
              onEscape(`${j.coarse ? 'coarse' : 'grouped'}, clip ${clip} t=${time}: mesh node ${i} vertex (${p}) outside [${values(nodes, i * 6, i * 6 + 3)}]–[${values(nodes, i * 6 + 3, i * 6 + 6)}] on axis ${c}`);
            }
          }
        }
        for (let c = 0; c < 3; c++) {
          tMin[c] = Math.min(tMin[c], p[c]);
          tMax[c] = Math.max(tMax[c], p[c]);
        }
      });
      const ratio = volumeRatio(job.outMin, job.outMax, tMin, tMax);
      result.meanRatio += ratio;
      result.maxRatio = Math.max(result.maxRatio, ratio);
      result.meanCoarseRatio += volumeRatio(coarse.outMin, coarse.outMax, tMin, tMax);
      result.frames++;
      const nodes = job.outMeshNodes!, dqNodes = dqJob.outMeshNodes!;
      const dMin = [Infinity, Infinity, Infinity], dMax = [-Infinity, -Infinity, -Infinity];
      world.each('dual-quaternion', (i, x, y, z) => {
        const p = [x, y, z];
        let size = 0;
        for (let c = 0; c < 3; c++) size = Math.max(size, nodes[i * 6 + 3 + c] - nodes[i * 6 + c]);
        for (let c = 0; c < 3; c++) {
          if (size > 0) result.dqsEscape = Math.max(result.dqsEscape, Math.max(nodes[i * 6 + c] - p[c], p[c] - nodes[i * 6 + 3 + c], 0) / size);
          if (!(p[c] >= dqNodes[i * 6 + c] && p[c] <= dqNodes[i * 6 + 3 + c])) result.dqsOutside++;
          dMin[c] = Math.min(dMin[c], p[c]);
          dMax[c] = Math.max(dMax[c], p[c]);
        }
      });
      result.meanDqsRatio += volumeRatio(dqJob.outMin, dqJob.outMax, dMin, dMax);
      const corNodes = corJob.outMeshNodes!;
      const cMin = [Infinity, Infinity, Infinity], cMax = [-Infinity, -Infinity, -Infinity];
      world.each('center-of-rotation', (i, x, y, z) => {
        const p = [x, y, z];
        for (let c = 0; c < 3; c++) {
          if (!(p[c] >= corNodes[i * 6 + c] && p[c] <= corNodes[i * 6 + 3 + c] && p[c] >= corJob.outMin[c] && p[c] <= corJob.outMax[c])) result.corOutside++;
          cMin[c] = Math.min(cMin[c], p[c]);
          cMax[c] = Math.max(cMax[c], p[c]);
        }
      });
      result.meanCorRatio += volumeRatio(corJob.outMin, corJob.outMax, cMin, cMax);
    }
  }
  result.meanCorRatio /= result.frames;
  result.meanRatio /= result.frames;
  result.meanCoarseRatio /= result.frames;
  result.meanDqsRatio /= result.frames;
  return result;
}

/** Models for the per-frame checks: the two biggest skinned shared assets and the built-in character. */
export const perFrameCases = sweepCases.filter((c) => ['CesiumMan', 'RobotExpressive', 'builtin:character'].includes(c.name));
