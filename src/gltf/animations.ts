import { ComponentType, Interpolation, TargetPath } from './constants.ts';
import { GltfError } from './errors.ts';
import { asObject, describe, optArray, optString, reqIndex, type JsonObject } from './json.ts';
import { MATERIAL_ANIM_FLOATS } from './extensions/khr-animation-pointer.ts';
import type { PointerReader } from './extensions/khr-animation-pointer-reader.ts';
import type { Channel, Clip, Hierarchy, MaterialTrack, Mesh, NodeInfo, Sampler } from './model.ts';
import { QUAT_LENGTH_WARN, type ReadContext } from './read-context.ts';
import { normalizeQuat, prepareSlerpKeys } from '../math/quat.ts';

/** The `animations` section: channels by node slot, samplers checked and shared, key times made canonical. */
export function readAnimations(ctx: ReadContext, h: Hierarchy, meshes: readonly Mesh[], nodes: readonly NodeInfo[], pointers?: PointerReader): Clip[] {
  return new AnimationReader(ctx, pointers).read(h, meshes, nodes);
}

/** One instance per load: samplers and key-time arrays are shared across all animations. */
class AnimationReader {
  private readonly samplerCache = new Map<string, Sampler>();
  private readonly checkedTimes = new Set<number>();
  /** Key-time arrays by content: equal timelines of different accessors become one. */
  private readonly canonicalTimes = new Map<Float32Array, Float32Array>();
  private readonly timesByHash = new Map<number, Float32Array[]>();
  /** `animations[i].channels[j] (pointer)` of the first KHR_animation_pointer channels we do not animate, and how many there are. */
  private readonly ignoredPointers: string[] = [];
  private ignoredCount = 0;
  private nodesByMesh: number[][] | undefined;

  /** `pointers`: KHR_animation_pointer's reader, which load.ts imports for a file with a pointer channel (pointer-presence.ts). */
  constructor(private readonly ctx: ReadContext, private readonly pointers: PointerReader | undefined) {}

  read(h: Hierarchy, meshes: readonly Mesh[], nodes: readonly NodeInfo[]): Clip[] {
    const clips = optArray(this.ctx.root, 'animations', '').map((a, ai): Clip => {
      const path = `animations[${ai}]`;
      const anim = asObject(a, path);
      const samplerJson = optArray(anim, 'samplers', path);
      const samplerComponents: number[] = [];
      const channels: Channel[] = [];
      const targeted = new Set<number>();
      const timelines: Float32Array[] = [];
      const timelineOf = new Map<Float32Array, number>();
      let duration = 0;
      const materialTracks: MaterialTrack[] = [];
      const materialTargeted = new Set<number>();
      const meshesTargeted = new Set<number>();
      /** Reads channel `cpath`'s sampler for values of `components` floats (`what` names them in errors). */
      const sampler = (ch: JsonObject, cpath: string, components: number, targetPath: TargetPath | undefined, what: string, typeComponents?: number): Sampler => {
        const samplerIndex = reqIndex(ch, 'sampler', cpath, samplerJson.length, `${path}.samplers`);
        if (samplerComponents[samplerIndex] !== undefined && samplerComponents[samplerIndex] !== components) {
          throw new GltfError(`${cpath}.sampler`, `samplers[${samplerIndex}] is shared by channels with different value sizes`);
        }
        samplerComponents[samplerIndex] = components;
        const spath = `${path}.samplers[${samplerIndex}]`;
        const s = this.readSampler(asObject(samplerJson[samplerIndex], spath), spath, components, targetPath, what, typeComponents);
        // What sampling this clip will lay out per channel (sample.ts clipTracks).
        this.ctx.budget.charge(s.values.length * 4, cpath);
        duration = Math.max(duration, s.times[s.times.length - 1]);
        return s;
      };
      /**
       * A channel on a node's T, R, S or weights; `at` and `meshAt` name the target in errors. Pointer
       * channels (`pointer`) must also have the output type of the property (weights: SCALAR).
       */
      const nodeChannel = (ch: JsonObject, cpath: string, node: number, targetPath: TargetPath, at: string, meshAt: string, pointer: boolean): void => {
        const pathName = TARGET_NAMES[targetPath];
        const key = node * 4 + targetPath;
        if (targeted.has(key)) throw new GltfError(at, `nodes[${node}].${pathName} is already animated by another channel of this animation`);
        targeted.add(key);
        let components = targetPath === TargetPath.ROTATION ? 4 : 3;
        if (targetPath === TargetPath.WEIGHTS) {
          const mesh = nodes[node].mesh;
          // A core channel three.js r187 makes no track for (nothing under the node has morph
          // targets) is ignored with a warning; a pointer naming such a property is malformed.
          if (mesh < 0) {
            if (pointer) throw new GltfError(meshAt, `weights channel targets nodes[${node}], which has no mesh`);
            this.ctx.warn(meshAt, `weights channel targets nodes[${node}], which has no mesh; the channel is ignored`);
            return;
          }
          components = meshes[mesh].weights.length;
          if (components === 0) {
            if (pointer) throw new GltfError(meshAt, `weights channel targets nodes[${node}], whose mesh has no morph targets`);
            this.ctx.warn(meshAt, `weights channel targets nodes[${node}], whose mesh has no morph targets; the channel is ignored`);
            return;
          }
        }
        const s = sampler(ch, cpath, components, targetPath, pathName, !pointer ? undefined : targetPath === TargetPath.WEIGHTS ? 1 : components);
        const times = this.canonical(s.times);
        let timeline = timelineOf.get(times);
        if (timeline === undefined) {
          timeline = timelines.push(times) - 1;
          timelineOf.set(times, timeline);
        }
        channels.push({ node, slot: h.slotOf[node], path: targetPath, sampler: s, timeline });
      };
      const pointerChannel = (ch: JsonObject, cpath: string, target: JsonObject, reader: PointerReader): void => {
        const pointer = reader.channelPointer(target, `${cpath}.target`);
        const at = `${cpath}.target.extensions.KHR_animation_pointer.pointer`;
        const t = reader.resolvePointer(pointer, this.ctx.root, at);
        switch (t.kind) {
          case 'ignored':
            if (this.ignoredCount++ < MAX_LISTED) this.ignoredPointers.push(`${cpath} (${pointer.length > 120 ? `${pointer.slice(0, 120)}…` : pointer})`);
            return;
          case 'node': nodeChannel(ch, cpath, t.node, t.path, at, at, true); return;
          case 'mesh-weights': {
            if (meshesTargeted.has(t.mesh)) throw new GltfError(at, `meshes[${t.mesh}].weights is already animated by another channel of this animation`);
            meshesTargeted.add(t.mesh);
            // One channel per node: a file cannot make many from few bytes beyond its budget.
            const users = this.meshWeightNodes(nodes)[t.mesh] ?? [];
            this.ctx.budget.charge(users.length * CHANNEL_BYTES, cpath);
            for (const ni of users) {
              if (!targeted.has(ni * 4 + TargetPath.WEIGHTS)) nodeChannel(ch, cpath, ni, TargetPath.WEIGHTS, at, at, true);
            }
            return;
          }
          case 'material': {
            const key = t.material * MATERIAL_ANIM_FLOATS + t.offset;
            if (materialTargeted.has(key)) throw new GltfError(at, `${describe(pointer)} is already animated by another channel of this animation`);
            materialTargeted.add(key);
            materialTracks.push({ material: t.material, offset: t.offset, sampler: sampler(ch, cpath, t.components, undefined, pointer, t.components) });
          }
        }
      };
      optArray(anim, 'channels', path).forEach((c, ci) => {
        const cpath = `${path}.channels[${ci}]`;
        const ch = asObject(c, cpath);
        reqIndex(ch, 'sampler', cpath, samplerJson.length, `${path}.samplers`);
        const target = asObject(ch.target, `${cpath}.target`);
        const pathName = optString(target, 'path', `${cpath}.target`);
        if (pathName === 'pointer') {
          if (!this.pointers) throw new Error(`${cpath}: KHR_animation_pointer's reader was not loaded (readAnimations needs it for a pointer channel)`);
          pointerChannel(ch, cpath, target, this.pointers);
          return;
        }
        if (target.node === undefined) return; // Allowed by the spec: the target lives in an extension.
        const node = reqIndex(target, 'node', `${cpath}.target`, nodes.length, 'nodes');
        // Own properties only: "constructor" or "__proto__" must not find Object's.
        const targetPath = pathName !== undefined && Object.hasOwn(TARGET_PATHS, pathName) ? TARGET_PATHS[pathName] : undefined;
        if (targetPath === undefined) {
          // three.js r187 makes a track that binds to nothing: the channel has no effect.
          this.ctx.warn(`${cpath}.target.path`, `${describe(pathName)} is not translation, rotation, scale or weights; the channel is ignored`);
          return;
        }
        nodeChannel(ch, cpath, node, targetPath, `${cpath}.target`, `${cpath}.target.node`, false);
      });
      const clip: Clip = { name: optString(anim, 'name', path), duration, channels, timelines };
      return materialTracks.length > 0 ? { ...clip, materialTracks } : clip;
    });
    if (this.ignoredCount > 0) {
      const more = this.ignoredCount > MAX_LISTED ? ` and ${this.ignoredCount - MAX_LISTED} more` : '';
      this.ctx.warn('animations', `KHR_animation_pointer channels on properties we do not animate are ignored: ${this.ignoredPointers.join(', ')}${more}`);
    }
    return clips;
  }

  /**
   * By mesh, the nodes drawing it without weights of their own (glTF: a node's weights override
   * its mesh's), which a `/meshes/M/weights` pointer animates; found once per load.
   */
  private meshWeightNodes(nodes: readonly NodeInfo[]): number[][] {
    if (this.nodesByMesh) return this.nodesByMesh;
    const byMesh: number[][] = [];
    const nodesJson = optArray(this.ctx.root, 'nodes', '');
    nodes.forEach((n, ni) => {
      if (n.mesh >= 0 && asObject(nodesJson[ni], `nodes[${ni}]`).weights === undefined) (byMesh[n.mesh] ??= []).push(ni);
    });
    this.nodesByMesh = byMesh;
    return byMesh;
  }

  /** The first key-time array seen with these contents (hashed, so equal timelines cost one pass each). */
  private canonical(times: Float32Array): Float32Array {
    let found = this.canonicalTimes.get(times);
    if (found) return found;
    const hash = hashFloats(times);
    const candidates = this.timesByHash.get(hash) ?? [];
    found = candidates.find((c) => sameTimes(c, times)) ?? times;
    if (found === times) {
      candidates.push(times);
      this.timesByHash.set(hash, candidates);
    }
    this.canonicalTimes.set(times, found);
    return found;
  }

  /** One sampler, shared by every channel (of any animation) that reads it the same way. */
  private readSampler(s: JsonObject, path: string, components: number, targetPath: TargetPath | undefined, what: string, typeComponents?: number): Sampler {
    const interpName = optString(s, 'interpolation', path) ?? 'LINEAR';
    const interpolation = Object.hasOwn(INTERPOLATIONS, interpName) ? INTERPOLATIONS[interpName] : undefined;
    if (interpolation === undefined) throw new GltfError(`${path}.interpolation`, `${describe(interpName)} is not LINEAR, STEP or CUBICSPLINE`);
    const inputData = this.ctx.accessor(s.input, `${path}.input`);
    const outData = this.ctx.accessor(s.output, `${path}.output`);
    if (typeComponents !== undefined && outData.components !== typeComponents) {
      throw new GltfError(`${path}.output`, `has ${outData.components} components per element; ${what} needs ${typeComponents}`);
    }
    const cacheKey = `${s.input}/${s.output}/${interpolation}/${targetPath ?? 'm'}/${components}`;
    const cached = this.samplerCache.get(cacheKey);
    if (cached) return cached;

    if (inputData.components !== 1 || inputData.componentType !== ComponentType.FLOAT) {
      throw new GltfError(`${path}.input`, 'must be a FLOAT SCALAR accessor');
    }
    const times = inputData.array as Float32Array;
    if (!this.checkedTimes.has(s.input as number)) {
      for (let i = 0; i < times.length; i++) {
        if (!Number.isFinite(times[i]) || times[i] < 0) throw new GltfError(`${path}.input`, `key time ${times[i]} at key ${i} is not a finite non-negative number`);
        if (i > 0 && times[i] < times[i - 1]) throw new GltfError(`${path}.input`, `key times decrease at key ${i} (${times[i - 1]} → ${times[i]})`);
      }
      this.checkedTimes.add(s.input as number);
    }
    const keys = times.length;
    if (interpolation === Interpolation.CUBICSPLINE && keys < 2) throw new GltfError(`${path}.input`, 'CUBICSPLINE needs at least two keys');
    const perKey = interpolation === Interpolation.CUBICSPLINE ? 3 * components : components;
    const expected = keys * perKey;
    if (outData.array.length !== expected) {
      throw new GltfError(`${path}.output`, `has ${outData.array.length} values; ${keys} keys of ${interpName} ${what} need ${expected}`);
    }
    const values = this.ctx.floatValues(s.output, `${path}.output`);
    // Rotation keys are unit quaternions by spec; quantised or sloppy ones are normalised
    // once here so sampling never has to (spline tangents are left as they are).
    let ownValues = values;
    let slerpAngle: Float64Array | undefined;
    let slerpInvSin: Float64Array | undefined;
    if (targetPath === TargetPath.ROTATION) {
      this.ctx.budget.charge(values.length * 4 + keys * 16, `${path}.output`);
      ownValues = values.slice();
      const valueOffset = interpolation === Interpolation.CUBICSPLINE ? 4 : 0;
      const tolerance = outData.componentType === ComponentType.BYTE ? 0.02 : QUAT_LENGTH_WARN;
      let worst = 1;
      for (let k = 0; k < keys; k++) {
        const o = k * perKey + valueOffset;
        // The square root of the sum, not Math.hypot (~7× slower per key in V8): float32 components
        // square and sum in doubles without overflow or underflow, so nothing needs its scaling.
        const x = ownValues[o], y = ownValues[o + 1], z = ownValues[o + 2], w = ownValues[o + 3];
        const len = Math.sqrt(x * x + y * y + z * z + w * w);
        if (len === 0) throw new GltfError(`${path}.output`, `rotation key ${k} is a zero quaternion`);
        if (Math.abs(len - 1) > Math.abs(worst - 1)) worst = len;
        normalizeQuat(ownValues, o, ownValues, o);
      }
      if (Math.abs(worst - 1) > tolerance) this.ctx.warn(`${path}.output`, `rotation keys are not unit quaternions (worst length ${worst.toFixed(4)}); renormalised`);
      if (interpolation === Interpolation.LINEAR) ({ slerpAngle, slerpInvSin } = prepareSlerpKeys(ownValues, keys));
    }
    const sampler: Sampler = { interpolation, times, values: ownValues, components, slerpAngle, slerpInvSin };
    this.samplerCache.set(cacheKey, sampler);
    return sampler;
  }
}

function sameTimes(a: Float32Array, b: Float32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const TARGET_PATHS: Readonly<Record<string, TargetPath>> = {
  translation: TargetPath.TRANSLATION,
  rotation: TargetPath.ROTATION,
  scale: TargetPath.SCALE,
  weights: TargetPath.WEIGHTS,
};
const TARGET_NAMES = ['translation', 'rotation', 'scale', 'weights'];
/** What one Channel costs beyond its sampler's values (charged for `/meshes/M/weights` channels, made per node). */
export const CHANNEL_BYTES = 128;
/** Ignored pointer channels named in the warning; the rest are counted. */
const MAX_LISTED = 8;
const INTERPOLATIONS: Readonly<Record<string, Interpolation>> = {
  LINEAR: Interpolation.LINEAR,
  STEP: Interpolation.STEP,
  CUBICSPLINE: Interpolation.CUBICSPLINE,
};

/** FNV-1a over a float array's bits: a cheap key for finding equal key-time arrays. */
function hashFloats(values: Float32Array): number {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  let h = 0x811c9dc5 ^ values.length;
  for (let i = 0; i < bits.length; i++) h = Math.imul(h ^ bits[i], 0x01000193);
  return h >>> 0;
}
