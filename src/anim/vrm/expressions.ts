import type { Model } from '../../gltf/model.ts';
import type { VrmExpression } from '../../gltf/vrm-model.ts';
import { restValues, type MaterialAnimation, type MaterialOverlay } from '../material-tracks.ts';
import type { Pose } from '../pose.ts';
import { colorBindTargets, textureBindTargets, type MaterialBindTarget } from './expression-material-targets.ts';

/** three-vrm's override groups: expressions a `block`/`blend` override suppresses. */
const BLINK = new Set(['blink', 'blinkLeft', 'blinkRight']);
const LOOK_AT = new Set(['lookLeft', 'lookRight', 'lookUp', 'lookDown']);
const MOUTH = new Set(['aa', 'ee', 'ih', 'oh', 'ou']);

/**
 * VRM expressions as a pose step: `weights` (one per expression, 0–1, set by name with
 * `setWeight`) become morph target weights in the pose and material values (colour and
 * texture-transform binds) in the instance's MaterialAnimation, as three-vrm's
 * VRMExpressionManager.update does:
 *
 * - an `isBinary` expression counts as 1 above 0.5 and as 0 otherwise;
 * - every expression with `overrideBlink`/`overrideLookAt`/`overrideMouth` lowers the blink,
 *   look-at or mouth expressions' multiplier by its weight (`blend`) or to 0 (`block`, once its
 *   weight is above 0), the multipliers floored at 0;
 * - morph targets any expression binds start from 0 (a clip's value for them is replaced),
 *   then each expression adds its weight × multiplier × the bind weight;
 * - bound material values start from the material's own and move by weight × (target − own).
 *
 * `run` allocates nothing.
 */
export class ExpressionJob implements MaterialOverlay {
  readonly expressions: readonly VrmExpression[];
  /** The weight of each expression, in `expressions` order (what `setWeight` sets). */
  readonly weights: Float32Array;
  /** What each expression applied in the last `run`: its weight after isBinary and the override multipliers. */
  readonly applied: Float32Array;

  private readonly indexOf: ReadonlyMap<string, number>;
  private readonly group: Uint8Array;
  private readonly override: Uint8Array;
  /** Morph binds: `bindTarget` is an index into the pose's weights; binds of expression e are `bindStart[e] … bindStart[e + 1]`. */
  private readonly bindStart: Int32Array;
  private readonly bindTarget: Int32Array;
  private readonly bindWeight: Float32Array;
  /** Distinct bound morph weights (cleared to 0 each run). */
  private readonly boundTargets: Int32Array;
  /** Material value targets: floats of MaterialAnimation.values each expression moves. */
  private readonly materialStart: Int32Array;
  private readonly materialTargets: MaterialBindTarget[];
  /** Where each bound material value starts from (its material's own value), by `values` index. */
  private readonly materialRest: Float32Array | undefined;
  private readonly materialIndices: Int32Array;
  /**
   * The weights and the pose's bound morph weights as the last `run` left them (NaN before any):
   * a run with both still equal would write what is already there (see `run`).
   */
  private readonly lastWeights: Float32Array;
  private readonly lastBound: Float32Array;

  constructor(
    readonly model: Model,
    readonly pose: Pose,
    /** Receives the material binds (as its overlay); without one, they are ignored. */
    readonly materials?: MaterialAnimation,
  ) {
    const expressions = model.vrm?.expressions ?? [];
    this.expressions = expressions;
    this.weights = new Float32Array(expressions.length);
    this.applied = new Float32Array(expressions.length);
    this.indexOf = new Map(expressions.map((e, i) => [e.name, i]));
    // Override bits: 1 blink, 2 look-at, 4 mouth (what the expression belongs to).
    this.group = Uint8Array.from(expressions, (e) => (BLINK.has(e.name) ? 1 : 0) | (LOOK_AT.has(e.name) ? 2 : 0) | (MOUTH.has(e.name) ? 4 : 0));
    // Two bits each for blink, look-at, mouth: 0 none, 1 block, 2 blend.
    const code = { none: 0, block: 1, blend: 2 } as const;
    this.override = Uint8Array.from(expressions, (e) => code[e.overrideBlink] | (code[e.overrideLookAt] << 2) | (code[e.overrideMouth] << 4));

    const h = model.hierarchy;
    const starts = [0], targets: number[] = [], bindWeights: number[] = [];
    for (const e of expressions) {
      for (const b of e.morphTargetBinds) {
        targets.push(pose.weightOffsets[h.slotOf[b.node]] + b.index);
        bindWeights.push(b.weight);
      }
      starts.push(targets.length);
    }
    this.bindStart = Int32Array.from(starts);
    this.bindTarget = Int32Array.from(targets);
    this.bindWeight = Float32Array.from(bindWeights);
    this.boundTargets = Int32Array.from(new Set(targets));
    this.lastWeights = new Float32Array(expressions.length).fill(NaN);
    this.lastBound = new Float32Array(this.boundTargets.length).fill(NaN);

    const materialStarts = [0];
    this.materialTargets = [];
    if (materials) {
      for (const e of expressions) {
        for (const b of e.materialColorBinds) this.materialTargets.push(...colorBindTargets(model, materials, b));
        for (const b of e.textureTransformBinds) this.materialTargets.push(...textureBindTargets(model, materials, b));
        materialStarts.push(this.materialTargets.length);
      }
      const rest = new Float32Array(materials.values.length);
      materials.materials.forEach((m, i) => restValues(model.materials[m], rest, i * (rest.length / materials.materials.length)));
      this.materialRest = rest;
      this.materialIndices = Int32Array.from(new Set(this.materialTargets.map((t) => t.index)));
      if (this.materialTargets.length > 0) materials.overlay = this;
    } else {
      for (let e = 0; e < expressions.length; e++) materialStarts.push(0);
      this.materialRest = undefined;
      this.materialIndices = new Int32Array(0);
    }
    this.materialStart = Int32Array.from(materialStarts);
  }

  /** The expressions' names, in order. */
  get names(): string[] {
    return this.expressions.map((e) => e.name);
  }

  /** Index of the expression called `name`, or -1. */
  find(name: string): number {
    return this.indexOf.get(name) ?? -1;
  }

  /** Sets an expression's weight, clamped to [0, 1] (NaN counts as 0); false when there is no such expression. */
  setWeight(name: string, weight: number): boolean {
    const i = this.find(name);
    if (i < 0) return false;
    this.weights[i] = weight > 0 ? (weight < 1 ? weight : 1) : 0;
    return true;
  }

  /** Every weight back to 0. */
  resetWeights(): void {
    this.weights.fill(0);
  }

  /**
   * Writes the morph weights into the pose and refreshes the material values (MaterialAnimation.publish).
   * Skipped while the weights and the bound morph weights are as the last run left them: the
   * applied weights are a function of the weights alone, so this run would write the same morph
   * weights, and the material values already hold them (a clip's `evaluate` in between applies
   * the same overlay).
   */
  run(): void {
    const n = this.expressions.length;
    if (n === 0 || this.unchangedSinceRun()) return;
    // Each expression's weight after isBinary.
    const applied = this.applied, weights0 = this.weights;
    for (let e = 0; e < n; e++) {
      const w = weights0[e];
      applied[e] = this.expressions[e].isBinary ? (w > 0.5 ? 1 : 0) : w;
    }
    // Override multipliers: a block takes the whole group once the weight is above 0, a blend the weight.
    let blink = 1, lookAt = 1, mouth = 1;
    for (let e = 0; e < n; e++) {
      const w = applied[e], o = this.override[e];
      const b = o & 3, l = (o >> 2) & 3, m = (o >> 4) & 3;
      blink -= b === 1 ? (w > 0 ? 1 : 0) : b === 2 ? w : 0;
      lookAt -= l === 1 ? (w > 0 ? 1 : 0) : l === 2 ? w : 0;
      mouth -= m === 1 ? (w > 0 ? 1 : 0) : m === 2 ? w : 0;
    }
    if (blink < 0) blink = 0;
    if (lookAt < 0) lookAt = 0;
    if (mouth < 0) mouth = 0;
    for (let e = 0; e < n; e++) {
      let w = applied[e];
      const g = this.group[e];
      if (g & 1) w *= blink;
      if (g & 2) w *= lookAt;
      if (g & 4) w *= mouth;
      // A binary expression stays binary after the multipliers (three-vrm).
      if (this.expressions[e].isBinary && w < 1) w = 0;
      this.applied[e] = w;
    }
    const weights = this.pose.weights;
    for (let i = 0; i < this.boundTargets.length; i++) weights[this.boundTargets[i]] = 0;
    for (let e = 0; e < n; e++) {
      const w = this.applied[e];
      if (w === 0) continue;
      for (let b = this.bindStart[e]; b < this.bindStart[e + 1]; b++) weights[this.bindTarget[b]] += this.bindWeight[b] * w;
    }
    if (this.materialTargets.length > 0) this.materials!.publish();
    this.lastWeights.set(weights0);
    for (let i = 0; i < this.boundTargets.length; i++) this.lastBound[i] = weights[this.boundTargets[i]];
  }

  /** Whether the weights and the pose's bound morph weights are as the last `run` left them (stops at the first difference). */
  private unchangedSinceRun(): boolean {
    const weights = this.weights, last = this.lastWeights;
    for (let e = 0; e < weights.length; e++) if (weights[e] !== last[e]) return false;
    const pose = this.pose.weights, bound = this.boundTargets, lastBound = this.lastBound;
    for (let i = 0; i < bound.length; i++) if (pose[bound[i]] !== lastBound[i]) return false;
    return true;
  }

  /** MaterialOverlay: the bound material values from their own values and the last run's weights. */
  apply(values: Float32Array): void {
    const rest = this.materialRest!;
    for (let i = 0; i < this.materialIndices.length; i++) values[this.materialIndices[i]] = rest[this.materialIndices[i]];
    for (let e = 0; e < this.expressions.length; e++) {
      const w = this.applied[e];
      if (w === 0) continue;
      for (let t = this.materialStart[e]; t < this.materialStart[e + 1]; t++) {
        const target = this.materialTargets[t];
        values[target.index] += (target.value - rest[target.index]) * w;
      }
    }
  }

}
