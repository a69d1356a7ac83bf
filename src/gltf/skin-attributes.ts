import type { AccessorData } from './accessors.ts';
import { ComponentType } from './constants.ts';
import { GltfError } from './errors.ts';
import type { JsonObject } from './json.ts';
import type { Primitive } from './model.ts';
import type { ReadContext } from './read-context.ts';

/** A weight sum further than this from 1 is repaired and reported as a warning. */
const WEIGHT_SUM_WARN = 1e-3;
/** Sums closer than this to 1 are left as stored (quantisation noise). */
const WEIGHT_SUM_EXACT = 1e-6;

/** What a primitive's JOINTS_n/WEIGHTS_n accessors give it. */
export type SkinAttributes = Pick<Primitive, 'influences' | 'joints' | 'weights' | 'maxJoint' | 'jointSets' | 'weightSets'>;

/**
 * Checks and widens a primitive's skinning attributes, renormalising weights that do not
 * sum to 1. One instance per load: primitives sharing the same accessors share the result.
 */
export class SkinAttributeReader {
  private readonly cache = new Map<string, SkinAttributes>();

  constructor(private readonly ctx: ReadContext) {}

  read(attrs: JsonObject, apath: string, vertexCount: number): SkinAttributes {
    const none = { influences: 0 as const, joints: undefined, weights: undefined, maxJoint: -1, jointSets: [], weightSets: [] };
    if (attrs.JOINTS_0 === undefined && attrs.WEIGHTS_0 === undefined) return none;
    if (attrs.JOINTS_0 === undefined || attrs.WEIGHTS_0 === undefined) {
      const missing = attrs.JOINTS_0 === undefined ? 'JOINTS_0' : 'WEIGHTS_0';
      throw new GltfError(`${apath}.${missing}`, 'is required when the other skinning attribute is present');
    }
    const sets = attrs.JOINTS_1 !== undefined && attrs.WEIGHTS_1 !== undefined ? 2 : 1;
    if ((attrs.JOINTS_1 === undefined) !== (attrs.WEIGHTS_1 === undefined)) {
      this.ctx.warn(apath, 'JOINTS_1 and WEIGHTS_1 must come together; the lone one is ignored');
    }
    // Checks that depend on this primitive come first; the per-vertex work is shared by
    // every primitive using the same accessors.
    const jointSets: AccessorData[] = [];
    const weightSets: AccessorData[] = [];
    for (let set = 0; set < sets; set++) {
      const jpath = `${apath}.JOINTS_${set}`;
      const wpath = `${apath}.WEIGHTS_${set}`;
      const j = this.ctx.attribute(attrs, `JOINTS_${set}`, apath);
      if (j.components !== 4) throw new GltfError(jpath, 'must be a VEC4 accessor');
      if (j.componentType !== ComponentType.UNSIGNED_BYTE && j.componentType !== ComponentType.UNSIGNED_SHORT) {
        throw new GltfError(jpath, `componentType ${j.componentType} must be UNSIGNED_BYTE or UNSIGNED_SHORT`);
      }
      if (j.count !== vertexCount) throw new GltfError(jpath, `has ${j.count} elements but POSITION has ${vertexCount}`);
      const w = this.ctx.attribute(attrs, `WEIGHTS_${set}`, apath);
      if (w.components !== 4) throw new GltfError(wpath, 'must be a VEC4 accessor');
      const wct = w.componentType;
      const validWeightType = wct === ComponentType.FLOAT || (w.normalized && (wct === ComponentType.UNSIGNED_BYTE || wct === ComponentType.UNSIGNED_SHORT));
      if (!validWeightType) throw new GltfError(wpath, `must be FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT (got componentType ${wct}${w.normalized ? ', normalized' : ''})`);
      if (w.count !== vertexCount) throw new GltfError(wpath, `has ${w.count} elements but POSITION has ${vertexCount}`);
      jointSets.push(j);
      weightSets.push(w);
    }
    const key = this.ctx.cacheTag + (sets === 2 ? `${attrs.JOINTS_0}/${attrs.WEIGHTS_0}/${attrs.JOINTS_1}/${attrs.WEIGHTS_1}` : `${attrs.JOINTS_0}/${attrs.WEIGHTS_0}`);
    const cached = this.cache.get(key);
    if (cached) return cached;

    const influences = (sets * 4) as 4 | 8;
    this.ctx.budget.charge(vertexCount * influences * 6, apath);
    const joints = new Uint16Array(vertexCount * influences);
    const weights = new Float32Array(vertexCount * influences);
    let maxJoint = -1;
    for (let set = 0; set < sets; set++) {
      const wpath = `${apath}.WEIGHTS_${set}`;
      const j = jointSets[set];
      const wf = this.ctx.attributeFloats(attrs, `WEIGHTS_${set}`, apath);
      for (let v = 0; v < vertexCount; v++) {
        for (let c = 0; c < 4; c++) {
          const wv = wf[v * 4 + c];
          if (wv < 0) throw new GltfError(wpath, `vertex ${v} has weight ${wv}; weights must be finite and non-negative`);
          joints[v * influences + set * 4 + c] = j.array[v * 4 + c];
          weights[v * influences + set * 4 + c] = wv;
          // Checked even at zero weight: the GPU reads every listed joint's matrix.
          if (j.array[v * 4 + c] > maxJoint) maxJoint = j.array[v * 4 + c];
        }
      }
    }
    let repaired = 0;
    let worst = 0;
    let zero = 0;
    for (let v = 0; v < vertexCount; v++) {
      let sum = 0;
      for (let i = 0; i < influences; i++) sum += weights[v * influences + i];
      if (sum === 0) {
        // No influence at all: bind the vertex rigidly to its first joint rather than collapse it to the origin.
        weights[v * influences] = 1;
        zero++;
        repaired++;
        continue;
      }
      const error = Math.abs(sum - 1);
      if (error > WEIGHT_SUM_EXACT) {
        const inv = 1 / sum;
        for (let i = 0; i < influences; i++) weights[v * influences + i] *= inv;
        repaired++;
        if (error > worst) worst = error;
      }
    }
    if (zero > 0) {
      // The GPU divides by the weight sum (shaders/skinning.wgsl), so the file's own weights
      // serve as they are — except all-zero ones, which get the repaired floats.
      this.ctx.budget.charge(vertexCount * sets * 16, apath);
      weightSets.length = 0;
      for (let set = 0; set < sets; set++) {
        const array = new Float32Array(vertexCount * 4);
        for (let v = 0; v < vertexCount; v++) for (let c = 0; c < 4; c++) array[v * 4 + c] = weights[v * influences + set * 4 + c];
        weightSets.push({ array, componentType: ComponentType.FLOAT, components: 4, count: vertexCount, normalized: false });
      }
    }
    if (worst > WEIGHT_SUM_WARN || zero > 0) {
      this.ctx.warn(`${apath}.WEIGHTS_0`, `${repaired} vertices had weights not summing to 1 (worst off by ${worst.toFixed(4)}${zero ? `, ${zero} all zero` : ''}); renormalised`);
    }
    const result: SkinAttributes = { influences, joints, weights, maxJoint, jointSets, weightSets };
    this.cache.set(key, result);
    return result;
  }
}
