import { readAccessor, toFloat32, type AccessorData, type AccessorSource } from './accessors.ts';
import type { LoadBudget } from './budget.ts';
import { ComponentType, Interpolation, PrimitiveMode, SamplerWrap, TargetPath } from './constants.ts';
import { GltfError, type GltfWarning } from './errors.ts';
import { isGlb, parseGlb, parseJsonBytes } from './glb.ts';
import {
  asObject, checkIndex, describe, optArray, optBoolean, optIndex, optInteger, optNumber, optNumbers,
  optObject, optString, reqIndex, reqInteger, type JsonObject,
} from './json.ts';
import type {
  Channel, Clip, Hierarchy, Image, Material, Mesh, MeshNode, Model, MorphTarget, NodeInfo, Primitive,
  Sampler, Skin, Texture, TextureInfo, TextureSampler,
} from './model.ts';
import { loadBuffers, loadImages, type ResourceOptions } from './resources.ts';
import { hashFloats, NodeTree, skinJointTree } from './validate.ts';
import { composeTRS, decomposeTRS, setIdentity } from '../math/trs.ts';
import { normalizeQuat, prepareSlerpKeys } from '../math/quat.ts';

export { decodeDataUri } from './resources.ts';

export interface LoadOptions extends ResourceOptions {
  /** Name recorded in the model (usually the file name). */
  readonly name?: string;
}

/** A weight sum further than this from 1 is repaired and reported as a warning. */
const WEIGHT_SUM_WARN = 1e-3;
/** Sums closer than this to 1 are left as stored (quantisation noise). */
const WEIGHT_SUM_EXACT = 1e-6;
/** A quaternion whose length is further than this from 1 is reported when normalised. */
const QUAT_LENGTH_WARN = 1e-3;
/** A `matrix` whose last row is further than this from 0 0 0 1 is not an affine transform. */
const MATRIX_AFFINE_EPSILON = 1e-6;

/** Loads a .glb or .gltf (JSON) file's bytes into a validated, immutable model. */
export async function loadGltf(bytes: Uint8Array, options: LoadOptions = {}): Promise<Model> {
  let json: unknown;
  let glbBin: Uint8Array | undefined;
  if (isGlb(bytes)) {
    ({ json, bin: glbBin } = parseGlb(bytes));
  } else {
    json = parseJsonBytes(bytes, '');
  }
  const root = asObject(json, '(root)');
  const asset = asObject(root.asset, 'asset');
  const version = optString(asset, 'version', 'asset');
  if (version === undefined || !/^2\.\d+$/.test(version)) {
    throw new GltfError('asset.version', `glTF version ${describe(version)} is not supported (only 2.x)`);
  }
  const required = optArray(root, 'extensionsRequired', '');
  if (required.length > 0) {
    const names = required.slice(0, 8).map((e) => (typeof e === 'string' ? e : describe(e)));
    throw new GltfError('extensionsRequired', `unsupported required extension(s): ${names.join(', ')}${required.length > 8 ? ', …' : ''}`);
  }
  const src = await loadBuffers(root, bytes.byteLength, glbBin, options);
  return new ModelReader(root, src, options).read(await loadImages(root, src, options));
}

/** What `readSkinAttributes` derives from one set of JOINTS_n/WEIGHTS_n accessors. */
type SkinAttributes = Pick<Primitive, 'influences' | 'joints' | 'weights' | 'maxJoint' | 'jointSets' | 'weightSets'>;

/** Reads everything but buffers and images; one instance per load. */
class ModelReader {
  private readonly warnings: GltfWarning[] = [];
  private readonly nodesJson: unknown[];
  private readonly budget: LoadBudget;
  /**
   * Everything derived from an accessor is computed once and shared by every use, so a
   * file that references one big accessor from thousands of places costs no more than
   * one reference (the budget covers what is not shared).
   */
  private readonly accessorCache = new Map<number, AccessorData>();
  private readonly floatCache = new Map<number, Float32Array>();
  private readonly indexCache = new Map<number, { indices: Uint16Array | Uint32Array; max: number }>();
  private readonly skinAttributeCache = new Map<string, SkinAttributes>();
  private readonly samplerCache = new Map<string, Sampler>();
  private readonly checkedTimes = new Set<number>();
  /** Key-time arrays by content: equal timelines of different accessors become one. */
  private readonly canonicalTimes = new Map<Float32Array, Float32Array>();
  private readonly timesByHash = new Map<number, Float32Array[]>();
  private readonly usedAccessors: Uint8Array;

  constructor(
    private readonly root: JsonObject,
    private readonly src: AccessorSource,
    private readonly options: LoadOptions,
  ) {
    this.nodesJson = optArray(root, 'nodes', '');
    this.budget = src.budget;
    this.usedAccessors = new Uint8Array(src.accessors.length);
  }

  read(images: Image[]): Model {
    const root = this.root;
    const skinCount = optArray(root, 'skins', '').length;
    const meshes = this.readMeshes();
    const nodes = this.readNodes(skinCount, meshes);
    const hierarchy = this.buildHierarchy(nodes);
    const tree = new NodeTree(hierarchy);
    const skins = this.readSkins(nodes, hierarchy, tree);
    const animations = this.readAnimations(hierarchy, meshes, nodes);
    const markAnimatedMatrices = hierarchy.useMatrix;
    for (const clip of animations) {
      for (const ch of clip.channels) if (ch.path !== TargetPath.WEIGHTS) markAnimatedMatrices[ch.slot] = 0;
    }
    const { scene, sceneRoots, inScene } = this.readScene(nodes);
    const meshNodes = this.readMeshNodes(nodes, meshes, skins, scene, inScene);
    this.warnUnused(nodes, skins.length);
    return Object.freeze({
      name: this.options.name ?? 'model',
      nodes, hierarchy, meshes, skins, animations, scene, sceneRoots, inScene, meshNodes,
      materials: this.readMaterials(),
      textures: this.readTextures(images.length),
      samplers: this.readSamplers(),
      images,
      warnings: this.warnings,
    });
  }

  private warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }

  private accessor(index: unknown, usedAt: string): AccessorData {
    const i = checkIndex(index, usedAt, this.src.accessors.length, 'accessors');
    this.usedAccessors[i] = 1;
    let data = this.accessorCache.get(i);
    if (!data) {
      data = readAccessor(this.src, i, usedAt);
      this.accessorCache.set(i, data);
    }
    return data;
  }

  /** The accessor's values as floats (normalisation applied), all checked finite. */
  private floatValues(index: unknown, usedAt: string): Float32Array {
    const data = this.accessor(index, usedAt);
    const i = index as number;
    let out = this.floatCache.get(i);
    if (!out) {
      if (data.componentType !== ComponentType.FLOAT) this.budget.charge(data.array.length * 4, usedAt);
      out = toFloat32(data);
      for (let k = 0; k < out.length; k++) {
        if (!Number.isFinite(out[k])) {
          throw new GltfError(usedAt, `accessors[${i}] has a non-finite value (${out[k]}) at element ${Math.floor(k / data.components)}`);
        }
      }
      this.floatCache.set(i, out);
    }
    return out;
  }

  private floatAccessor(index: unknown, usedAt: string, components: readonly number[]): Float32Array {
    const data = this.accessor(index, usedAt);
    if (!components.includes(data.components)) {
      throw new GltfError(usedAt, `accessors[${index}] has ${data.components} components, expected ${components.join(' or ')}`);
    }
    return this.floatValues(index, usedAt);
  }

  /** An accessor's `count` from its JSON alone (for attributes the loader does not read). */
  private accessorCount(index: unknown, usedAt: string): number {
    const i = checkIndex(index, usedAt, this.src.accessors.length, 'accessors');
    this.usedAccessors[i] = 1;
    const cached = this.accessorCache.get(i);
    if (cached) return cached.count;
    return reqInteger(asObject(this.src.accessors[i], `accessors[${i}]`), 'count', `accessors[${i}]`);
  }

  // ---------------------------------------------------------------- nodes

  private readNodes(skinCount: number, meshes: Mesh[]): NodeInfo[] {
    const count = this.nodesJson.length;
    this.budget.charge(count * 64, 'nodes');
    const parent = new Int32Array(count).fill(-1);
    const childLists: number[][] = [];
    for (let n = 0; n < count; n++) {
      const path = `nodes[${n}]`;
      const node = asObject(this.nodesJson[n], path);
      const children = optArray(node, 'children', path) as number[];
      for (let i = 0; i < children.length; i++) {
        const c = children[i];
        // The common case without building a path string (a file may have 100,000 nodes).
        if (!(Number.isInteger(c) && c >= 0 && c < count)) checkIndex(c, `${path}.children[${i}]`, count, 'nodes');
        if (c === n) throw new GltfError(`${path}.children[${i}]`, 'a node cannot be its own child');
        if (parent[c] === n) throw new GltfError(`${path}.children[${i}]`, `nodes[${c}] is listed twice`);
        if (parent[c] >= 0) {
          throw new GltfError(`${path}.children[${i}]`, `nodes[${c}] already has parent nodes[${parent[c]}] (a node may have only one parent)`);
        }
        parent[c] = n;
      }
      childLists.push(children);
    }
    const out: NodeInfo[] = [];
    for (let n = 0; n < count; n++) {
      const path = `nodes[${n}]`;
      const node = this.nodesJson[n] as JsonObject;
      const mesh = optIndex(node, 'mesh', path, meshes.length, 'meshes');
      const skin = optIndex(node, 'skin', path, skinCount, 'skins');
      if (skin >= 0 && mesh < 0) this.warn(`${path}.skin`, 'skin on a node without a mesh is ignored');
      const w = node.weights;
      let weights: Float32Array = mesh >= 0 ? meshes[mesh].weights : new Float32Array(0);
      if (w !== undefined) {
        const list = optNumbers(node, 'weights', path, Array.isArray(w) ? w.length : -1)!;
        // glTF-Validator NODE_WEIGHTS_INVALID (an error): one weight per morph target.
        if (mesh >= 0 && list.length !== meshes[mesh].weights.length) {
          throw new GltfError(`${path}.weights`, `has ${list.length} weights but meshes[${mesh}] has ${meshes[mesh].weights.length} morph targets`);
        }
        weights = float32Array(list, `${path}.weights`);
      }
      out.push({ name: optString(node, 'name', path), parent: parent[n], children: childLists[n], mesh, skin: mesh >= 0 ? skin : -1, weights });
    }
    return out;
  }

  private buildHierarchy(nodes: NodeInfo[]): Hierarchy {
    const count = nodes.length;
    this.budget.charge(count * 256, 'nodes');
    const order = new Int32Array(count);
    const slotOf = new Int32Array(count).fill(-1);
    const parentSlot = new Int32Array(count);
    let next = 0;
    // Depth-first from every root keeps subtrees contiguous; an explicit stack avoids
    // recursion limits on deep chains.
    const stack: number[] = [];
    for (let r = 0; r < count; r++) {
      if (nodes[r].parent >= 0) continue;
      stack.push(r);
      while (stack.length > 0) {
        const n = stack.pop()!;
        slotOf[n] = next;
        order[next] = n;
        parentSlot[next] = nodes[n].parent >= 0 ? slotOf[nodes[n].parent] : -1;
        next++;
        const children = nodes[n].children;
        for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
      }
    }
    if (next < count) {
      const stuck = slotOf.indexOf(-1);
      throw new GltfError(`nodes[${stuck}]`, 'is part of a cycle in the node hierarchy');
    }

    const restTranslation = new Float64Array(count * 3);
    const restRotation = new Float64Array(count * 4);
    const restScale = new Float64Array(count * 3);
    const restMatrix = new Float64Array(count * 16);
    const useMatrix = new Uint8Array(count);
    const t = [0, 0, 0], r = [0, 0, 0, 1], s = [1, 1, 1];
    for (let slot = 0; slot < count; slot++) {
      const n = order[slot];
      const path = `nodes[${n}]`;
      const node = this.nodesJson[n] as JsonObject;
      const matrix = optNumbers(node, 'matrix', path, 16);
      if (matrix) {
        if (node.translation !== undefined || node.rotation !== undefined || node.scale !== undefined) {
          throw new GltfError(`${path}.matrix`, 'a node may have either matrix or translation/rotation/scale, not both');
        }
        // glTF-Validator NODE_MATRIX_NON_TRS (an error): local→model treats every node as affine.
        if (Math.abs(matrix[3]) > MATRIX_AFFINE_EPSILON || Math.abs(matrix[7]) > MATRIX_AFFINE_EPSILON ||
            Math.abs(matrix[11]) > MATRIX_AFFINE_EPSILON || Math.abs(matrix[15] - 1) > MATRIX_AFFINE_EPSILON) {
          throw new GltfError(`${path}.matrix`, `last row is ${matrix[3]} ${matrix[7]} ${matrix[11]} ${matrix[15]}, not 0 0 0 1: not decomposable into translation/rotation/scale`);
        }
        restMatrix.set(matrix, slot * 16);
        useMatrix[slot] = 1;
        decomposeTRS(matrix, t, r, s);
        if (!s.every(Number.isFinite)) throw new GltfError(`${path}.matrix`, 'is too large to decompose into translation/rotation/scale');
      } else {
        const tv = optNumbers(node, 'translation', path, 3) ?? [0, 0, 0];
        const rv = optNumbers(node, 'rotation', path, 4) ?? [0, 0, 0, 1];
        const sv = optNumbers(node, 'scale', path, 3) ?? [1, 1, 1];
        t[0] = tv[0]; t[1] = tv[1]; t[2] = tv[2];
        r[0] = rv[0]; r[1] = rv[1]; r[2] = rv[2]; r[3] = rv[3];
        const len = Math.hypot(r[0], r[1], r[2], r[3]);
        if (len === 0) throw new GltfError(`${path}.rotation`, 'is a zero quaternion');
        if (Math.abs(len - 1) > QUAT_LENGTH_WARN) this.warn(`${path}.rotation`, `quaternion length ${len.toFixed(4)} renormalised`);
        normalizeQuat(r);
        s[0] = sv[0]; s[1] = sv[1]; s[2] = sv[2];
        composeTRS(t, r, s, restMatrix, 0, 0, 0, slot * 16);
      }
      restTranslation.set(t, slot * 3);
      restRotation.set(r, slot * 4);
      restScale.set(s, slot * 3);
    }
    return { count, order, slotOf, parentSlot, restTranslation, restRotation, restScale, restMatrix, useMatrix };
  }

  private readScene(nodes: NodeInfo[]): { scene: number; sceneRoots: Int32Array; inScene: Uint8Array } {
    const scenes = optArray(this.root, 'scenes', '');
    const inScene = new Uint8Array(nodes.length);
    let roots: number[];
    let scene = -1;
    if (scenes.length === 0) {
      roots = [];
      for (let n = 0; n < nodes.length; n++) if (nodes[n].parent < 0) roots.push(n);
    } else {
      scene = optIndex(this.root, 'scene', '', scenes.length, 'scenes');
      if (scene < 0) scene = 0;
      const path = `scenes[${scene}]`;
      const obj = asObject(scenes[scene], path);
      roots = optArray(obj, 'nodes', path).map((v, i) => checkIndex(v, `${path}.nodes[${i}]`, nodes.length, 'nodes'));
      roots.forEach((r, i) => {
        if (nodes[r].parent >= 0) throw new GltfError(`${path}.nodes[${i}]`, `nodes[${r}] is not a root node (its parent is nodes[${nodes[r].parent}])`);
        if (inScene[r]) throw new GltfError(`${path}.nodes[${i}]`, `nodes[${r}] is listed twice`);
        inScene[r] = 1;
      });
    }
    const stack = [...roots];
    while (stack.length > 0) {
      const n = stack.pop()!;
      inScene[n] = 1;
      for (const c of nodes[n].children) stack.push(c);
    }
    return { scene, sceneRoots: Int32Array.from(roots), inScene };
  }

  /** Every node of the scene that has a mesh, with the skin rules that need the scene. */
  private readMeshNodes(nodes: NodeInfo[], meshes: Mesh[], skins: Skin[], scene: number, inScene: Uint8Array): MeshNode[] {
    // Per mesh, computed once: node count × primitive count could be large.
    const maxJoint = meshes.map((m) => m.primitives.reduce((best, p, pi) => (p.maxJoint > best.value ? { value: p.maxJoint, primitive: pi } : best), { value: -1, primitive: -1 }));
    const jointOutsideScene = new Int32Array(skins.length).fill(-2);
    const meshNodes: MeshNode[] = [];
    for (let n = 0; n < nodes.length; n++) {
      const node = nodes[n];
      if (!inScene[n] || node.mesh < 0) continue;
      let skin = node.skin;
      const worst = maxJoint[node.mesh];
      if (skin >= 0) {
        if (worst.value < 0) {
          this.warn(`nodes[${n}].skin`, 'node has a skin but its mesh has no JOINTS_0/WEIGHTS_0; drawn rigid');
          skin = -1;
        } else {
          const joints = skins[skin].joints;
          if (worst.value >= joints.length) {
            throw new GltfError(
              `meshes[${node.mesh}].primitives[${worst.primitive}].attributes.JOINTS_0`,
              `joint index ${worst.value} is out of range for skins[${skin}] (used by nodes[${n}]) with ${joints.length} joints`,
            );
          }
          if (jointOutsideScene[skin] === -2) jointOutsideScene[skin] = joints.findIndex((j) => !inScene[j]);
          const outside = jointOutsideScene[skin];
          // glTF-Validator NODE_SKIN_NO_SCENE (an error): the skeleton must be in the scene it deforms.
          if (outside >= 0) {
            throw new GltfError(
              `nodes[${n}].skin`,
              `skins[${skin}].joints[${outside}] (nodes[${joints[outside]}]) is not in ${scene >= 0 ? `scenes[${scene}]` : 'the scene'}, which shows this skinned mesh`,
            );
          }
        }
      } else if (worst.value >= 0) {
        this.warn(`nodes[${n}].mesh`, `meshes[${node.mesh}] has JOINTS_0/WEIGHTS_0 but the node has no skin; drawn rigid`);
      }
      meshNodes.push({ node: n, mesh: node.mesh, skin });
    }
    return meshNodes;
  }

  /** Like glTF-Validator's UNUSED_OBJECT hints: data the file carries but nothing uses. */
  private warnUnused(nodes: NodeInfo[], skinCount: number): void {
    const unusedAccessors: number[] = [];
    for (let i = 0; i < this.usedAccessors.length; i++) if (!this.usedAccessors[i]) unusedAccessors.push(i);
    if (unusedAccessors.length > 0) this.warn('accessors', `${listOf(unusedAccessors, 'accessors')} never used; ignored`);
    const skinUsed = new Uint8Array(skinCount);
    for (const node of nodes) if (node.skin >= 0) skinUsed[node.skin] = 1;
    const unusedSkins: number[] = [];
    for (let i = 0; i < skinCount; i++) if (!skinUsed[i]) unusedSkins.push(i);
    if (unusedSkins.length > 0) this.warn('skins', `${listOf(unusedSkins, 'skins')} not used by any mesh node; ignored`);
  }

  // ---------------------------------------------------------------- meshes

  private readMeshes(): Mesh[] {
    return optArray(this.root, 'meshes', '').map((m, mi) => {
      const path = `meshes[${mi}]`;
      const mesh = asObject(m, path);
      const prims = optArray(mesh, 'primitives', path);
      if (prims.length === 0) throw new GltfError(`${path}.primitives`, 'a mesh needs at least one primitive');
      const primitives = prims.map((p, pi) => this.readPrimitive(asObject(p, `${path}.primitives[${pi}]`), `${path}.primitives[${pi}]`));
      // glTF-Validator MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT and MESH_INVALID_WEIGHTS_COUNT (errors):
      // one morph weight drives the same target of every primitive.
      const targetCount = primitives[0].targets.length;
      primitives.forEach((p, pi) => {
        if (p.targets.length !== targetCount) {
          throw new GltfError(`${path}.primitives[${pi}].targets`, `has ${p.targets.length} morph targets but primitives[0] has ${targetCount}; all primitives need the same number`);
        }
      });
      let weights: Float32Array = new Float32Array(targetCount);
      if (mesh.weights !== undefined) {
        const list = optNumbers(mesh, 'weights', path, Array.isArray(mesh.weights) ? mesh.weights.length : -1)!;
        if (list.length !== targetCount) throw new GltfError(`${path}.weights`, `has ${list.length} weights but the primitives have ${targetCount} morph targets`);
        weights = float32Array(list, `${path}.weights`);
      }
      const triangles = primitives.filter((p) => p.mode >= PrimitiveMode.TRIANGLES);
      const withoutNormals = triangles.filter((p) => !p.normals).length;
      if (withoutNormals > 0) {
        this.warn(`${path}.primitives`, `${withoutNormals} of ${primitives.length} primitive(s) have no NORMAL; flat normals are derived per face when drawn`);
      }
      return { name: optString(mesh, 'name', path), primitives, weights };
    });
  }

  private readPrimitive(prim: JsonObject, path: string): Primitive {
    const attrs = asObject(prim.attributes, `${path}.attributes`);
    const apath = `${path}.attributes`;
    if (attrs.POSITION === undefined) throw new GltfError(`${apath}.POSITION`, 'is required');
    const positions = this.floatAccessor(attrs.POSITION, `${apath}.POSITION`, [3]);
    const vertexCount = positions.length / 3;
    // glTF-Validator MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT (an error), also for attributes we do not read.
    for (const name of Object.keys(attrs)) {
      const n = this.accessorCount(attrs[name], `${apath}.${name}`);
      if (n !== vertexCount) throw new GltfError(`${apath}.${name}`, `has ${n} elements but POSITION has ${vertexCount}`);
    }
    const attribute = (name: string, components: readonly number[]): Float32Array | undefined => {
      if (attrs[name] === undefined) return undefined;
      return this.floatAccessor(attrs[name], `${apath}.${name}`, components);
    };
    const normals = attribute('NORMAL', [3]);
    const tangents = attribute('TANGENT', [4]);
    const texcoords0 = attribute('TEXCOORD_0', [2]);
    const texcoords1 = attribute('TEXCOORD_1', [2]);
    let colors0 = attribute('COLOR_0', [3, 4]);
    if (colors0 && colors0.length === vertexCount * 3) {
      this.budget.charge(vertexCount * 16, `${apath}.COLOR_0`);
      const rgba = new Float32Array(vertexCount * 4);
      for (let v = 0; v < vertexCount; v++) {
        rgba[v * 4] = colors0[v * 3]; rgba[v * 4 + 1] = colors0[v * 3 + 1]; rgba[v * 4 + 2] = colors0[v * 3 + 2]; rgba[v * 4 + 3] = 1;
      }
      colors0 = rgba;
    }

    const mode = optInteger(prim, 'mode', path, PrimitiveMode.TRIANGLES, 6);
    let indices: Uint16Array | Uint32Array | undefined;
    if (prim.indices !== undefined) {
      const ipath = `${path}.indices`;
      const read = this.indexAccessor(prim.indices, ipath);
      indices = read.indices;
      if (read.max >= vertexCount) {
        const at = indices.findIndex((i) => i >= vertexCount);
        throw new GltfError(ipath, `index ${indices[at]} at position ${at} is out of range (${vertexCount} vertices)`);
      }
      if (mode === PrimitiveMode.TRIANGLES && indices.length % 3 !== 0) {
        this.warn(ipath, `${indices.length} indices is not a whole number of triangles; the last ${indices.length % 3} are ignored`);
      }
    }

    const skin = this.readSkinAttributes(attrs, apath, vertexCount);
    const targets = optArray(prim, 'targets', path).map((t, ti) => {
      const tpath = `${path}.targets[${ti}]`;
      const target = asObject(t, tpath);
      const read = (name: string, components: number): Float32Array | undefined => {
        if (target[name] === undefined) return undefined;
        const data = this.floatAccessor(target[name], `${tpath}.${name}`, [components]);
        if (data.length !== vertexCount * components) throw new GltfError(`${tpath}.${name}`, `count does not match POSITION (${vertexCount})`);
        return data;
      };
      const morph: MorphTarget = { positions: read('POSITION', 3), normals: read('NORMAL', 3), tangents: read('TANGENT', 3) };
      return morph;
    });
    return {
      mode, vertexCount, positions, normals, tangents, texcoords0, texcoords1, colors0, indices,
      material: optIndex(prim, 'material', path, optArray(this.root, 'materials', '').length, 'materials'),
      ...skin,
      targets,
    };
  }

  /** An index accessor, widened to at least 16 bits, and its largest index (once per accessor). */
  private indexAccessor(index: unknown, ipath: string): { indices: Uint16Array | Uint32Array; max: number } {
    const data = this.accessor(index, ipath);
    if (data.components !== 1) throw new GltfError(ipath, 'must be a SCALAR accessor');
    const ct = data.componentType;
    if (ct !== ComponentType.UNSIGNED_BYTE && ct !== ComponentType.UNSIGNED_SHORT && ct !== ComponentType.UNSIGNED_INT) {
      throw new GltfError(ipath, `componentType ${ct} is not an unsigned integer type`);
    }
    let read = this.indexCache.get(index as number);
    if (!read) {
      if (ct === ComponentType.UNSIGNED_BYTE) this.budget.charge(data.count * 2, ipath);
      const indices = ct === ComponentType.UNSIGNED_BYTE ? Uint16Array.from(data.array) : (data.array as Uint16Array | Uint32Array);
      let max = -1;
      for (let i = 0; i < indices.length; i++) if (indices[i] > max) max = indices[i];
      read = { indices, max };
      this.indexCache.set(index as number, read);
    }
    return read;
  }

  private readSkinAttributes(attrs: JsonObject, apath: string, vertexCount: number): SkinAttributes {
    const none = { influences: 0 as const, joints: undefined, weights: undefined, maxJoint: -1, jointSets: [], weightSets: [] };
    if (attrs.JOINTS_0 === undefined && attrs.WEIGHTS_0 === undefined) return none;
    if (attrs.JOINTS_0 === undefined || attrs.WEIGHTS_0 === undefined) {
      const missing = attrs.JOINTS_0 === undefined ? 'JOINTS_0' : 'WEIGHTS_0';
      throw new GltfError(`${apath}.${missing}`, 'is required when the other skinning attribute is present');
    }
    const sets = attrs.JOINTS_1 !== undefined && attrs.WEIGHTS_1 !== undefined ? 2 : 1;
    if ((attrs.JOINTS_1 === undefined) !== (attrs.WEIGHTS_1 === undefined)) {
      this.warn(apath, 'JOINTS_1 and WEIGHTS_1 must come together; the lone one is ignored');
    }
    // Checks that depend on this primitive come first; the per-vertex work is shared by
    // every primitive using the same accessors.
    const jointSets: AccessorData[] = [];
    const weightSets: AccessorData[] = [];
    for (let set = 0; set < sets; set++) {
      const jpath = `${apath}.JOINTS_${set}`;
      const wpath = `${apath}.WEIGHTS_${set}`;
      const j = this.accessor(attrs[`JOINTS_${set}`], jpath);
      if (j.components !== 4) throw new GltfError(jpath, 'must be a VEC4 accessor');
      if (j.componentType !== ComponentType.UNSIGNED_BYTE && j.componentType !== ComponentType.UNSIGNED_SHORT) {
        throw new GltfError(jpath, `componentType ${j.componentType} must be UNSIGNED_BYTE or UNSIGNED_SHORT`);
      }
      if (j.count !== vertexCount) throw new GltfError(jpath, `has ${j.count} elements but POSITION has ${vertexCount}`);
      const w = this.accessor(attrs[`WEIGHTS_${set}`], wpath);
      if (w.components !== 4) throw new GltfError(wpath, 'must be a VEC4 accessor');
      const wct = w.componentType;
      const validWeightType = wct === ComponentType.FLOAT || (w.normalized && (wct === ComponentType.UNSIGNED_BYTE || wct === ComponentType.UNSIGNED_SHORT));
      if (!validWeightType) throw new GltfError(wpath, `must be FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT (got componentType ${wct}${w.normalized ? ', normalized' : ''})`);
      if (w.count !== vertexCount) throw new GltfError(wpath, `has ${w.count} elements but POSITION has ${vertexCount}`);
      jointSets.push(j);
      weightSets.push(w);
    }
    const key = sets === 2 ? `${attrs.JOINTS_0}/${attrs.WEIGHTS_0}/${attrs.JOINTS_1}/${attrs.WEIGHTS_1}` : `${attrs.JOINTS_0}/${attrs.WEIGHTS_0}`;
    const cached = this.skinAttributeCache.get(key);
    if (cached) return cached;

    const influences = (sets * 4) as 4 | 8;
    this.budget.charge(vertexCount * influences * 6, apath);
    const joints = new Uint16Array(vertexCount * influences);
    const weights = new Float32Array(vertexCount * influences);
    let maxJoint = -1;
    for (let set = 0; set < sets; set++) {
      const wpath = `${apath}.WEIGHTS_${set}`;
      const j = jointSets[set];
      const wf = this.floatValues(attrs[`WEIGHTS_${set}`], wpath);
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
      this.budget.charge(vertexCount * sets * 16, apath);
      weightSets.length = 0;
      for (let set = 0; set < sets; set++) {
        const array = new Float32Array(vertexCount * 4);
        for (let v = 0; v < vertexCount; v++) for (let c = 0; c < 4; c++) array[v * 4 + c] = weights[v * influences + set * 4 + c];
        weightSets.push({ array, componentType: ComponentType.FLOAT, components: 4, count: vertexCount, normalized: false });
      }
    }
    if (worst > WEIGHT_SUM_WARN || zero > 0) {
      this.warn(`${apath}.WEIGHTS_0`, `${repaired} vertices had weights not summing to 1 (worst off by ${worst.toFixed(4)}${zero ? `, ${zero} all zero` : ''}); renormalised`);
    }
    const result: SkinAttributes = { influences, joints, weights, maxJoint, jointSets, weightSets };
    this.skinAttributeCache.set(key, result);
    return result;
  }

  // ---------------------------------------------------------------- skins

  private readSkins(nodes: NodeInfo[], h: Hierarchy, tree: NodeTree): Skin[] {
    // Which skin last listed each node: one array for all skins, not one per skin.
    const listedBy = new Int32Array(nodes.length).fill(-1);
    return optArray(this.root, 'skins', '').map((s, si) => {
      const path = `skins[${si}]`;
      const skin = asObject(s, path);
      const jointList = optArray(skin, 'joints', path);
      if (jointList.length === 0) throw new GltfError(`${path}.joints`, 'a skin needs at least one joint');
      const count = jointList.length;
      this.budget.charge(count * 160, `${path}.joints`);
      const joints = Int32Array.from(jointList, (j, i) => checkIndex(j, `${path}.joints[${i}]`, nodes.length, 'nodes'));
      joints.forEach((j, i) => {
        if (listedBy[j] === si) throw new GltfError(`${path}.joints[${i}]`, `nodes[${j}] is listed twice`);
        listedBy[j] = si;
      });
      const inverseBindMatrices = new Float64Array(count * 16);
      if (skin.inverseBindMatrices !== undefined) {
        const ipath = `${path}.inverseBindMatrices`;
        const data = this.accessor(skin.inverseBindMatrices, ipath);
        if (data.components !== 16 || data.componentType !== ComponentType.FLOAT) throw new GltfError(ipath, 'must be a FLOAT MAT4 accessor');
        if (data.count < count) throw new GltfError(ipath, `has ${data.count} matrices for ${count} joints`);
        for (let i = 0; i < count * 16; i++) {
          const v = data.array[i];
          if (!Number.isFinite(v)) throw new GltfError(ipath, `matrix ${Math.floor(i / 16)} has a non-finite element (${v})`);
          inverseBindMatrices[i] = v;
        }
      } else {
        for (let j = 0; j < count; j++) setIdentity(inverseBindMatrices, j * 16);
      }
      let inverseBindAffine = true;
      for (let j = 0; j < count; j++) {
        const o = j * 16;
        if (inverseBindMatrices[o + 3] !== 0 || inverseBindMatrices[o + 7] !== 0 || inverseBindMatrices[o + 11] !== 0 || inverseBindMatrices[o + 15] !== 1) inverseBindAffine = false;
      }
      const skeleton = optIndex(skin, 'skeleton', path, nodes.length, 'nodes');
      const { jointParents, jointsParentFirst } = skinJointTree(tree, joints, skeleton, path);
      return {
        name: optString(skin, 'name', path),
        joints,
        jointSlots: joints.map((j) => h.slotOf[j]),
        jointParents, jointsParentFirst, inverseBindMatrices, inverseBindAffine, skeleton,
      };
    });
  }

  // ---------------------------------------------------------------- animations

  private readAnimations(h: Hierarchy, meshes: Mesh[], nodes: NodeInfo[]): Clip[] {
    return optArray(this.root, 'animations', '').map((a, ai) => {
      const path = `animations[${ai}]`;
      const anim = asObject(a, path);
      const samplerJson = optArray(anim, 'samplers', path);
      const samplerComponents: number[] = [];
      const channels: Channel[] = [];
      const targeted = new Set<number>();
      const timelines: Float32Array[] = [];
      const timelineOf = new Map<Float32Array, number>();
      let duration = 0;
      optArray(anim, 'channels', path).forEach((c, ci) => {
        const cpath = `${path}.channels[${ci}]`;
        const ch = asObject(c, cpath);
        const samplerIndex = reqIndex(ch, 'sampler', cpath, samplerJson.length, `${path}.samplers`);
        const target = asObject(ch.target, `${cpath}.target`);
        if (target.node === undefined) return; // Allowed by the spec: the target lives in an extension.
        const node = reqIndex(target, 'node', `${cpath}.target`, nodes.length, 'nodes');
        const pathName = optString(target, 'path', `${cpath}.target`);
        // Own properties only: "constructor" or "__proto__" must not find Object's.
        const targetPath = pathName !== undefined && Object.hasOwn(TARGET_PATHS, pathName) ? TARGET_PATHS[pathName] : undefined;
        if (targetPath === undefined) {
          if (pathName === 'pointer') return; // KHR_animation_pointer, not supported: ignore.
          throw new GltfError(`${cpath}.target.path`, `${describe(pathName)} is not translation, rotation, scale or weights`);
        }
        const key = node * 4 + targetPath;
        if (targeted.has(key)) throw new GltfError(`${cpath}.target`, `nodes[${node}].${pathName} is already animated by another channel of this animation`);
        targeted.add(key);
        let components = targetPath === TargetPath.ROTATION ? 4 : 3;
        if (targetPath === TargetPath.WEIGHTS) {
          const mesh = nodes[node].mesh;
          if (mesh < 0) throw new GltfError(`${cpath}.target.node`, `weights channel targets nodes[${node}], which has no mesh`);
          components = meshes[mesh].primitives[0].targets.length;
          if (components === 0) throw new GltfError(`${cpath}.target.node`, `weights channel targets nodes[${node}], whose mesh has no morph targets`);
        }
        if (samplerComponents[samplerIndex] !== undefined && samplerComponents[samplerIndex] !== components) {
          throw new GltfError(`${cpath}.sampler`, `samplers[${samplerIndex}] is shared by channels with different value sizes`);
        }
        samplerComponents[samplerIndex] = components;
        const spath = `${path}.samplers[${samplerIndex}]`;
        const sampler = this.readSampler(asObject(samplerJson[samplerIndex], spath), spath, components, targetPath);
        // What sampling this clip will lay out per channel (sample.ts clipTracks).
        this.budget.charge(sampler.values.length * 4, cpath);
        duration = Math.max(duration, sampler.times[sampler.times.length - 1]);
        const times = this.canonical(sampler.times);
        let timeline = timelineOf.get(times);
        if (timeline === undefined) {
          timeline = timelines.push(times) - 1;
          timelineOf.set(times, timeline);
        }
        channels.push({ node, slot: h.slotOf[node], path: targetPath, sampler, timeline });
      });
      return { name: optString(anim, 'name', path), duration, channels, timelines };
    });
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
  private readSampler(s: JsonObject, path: string, components: number, targetPath: TargetPath): Sampler {
    const interpName = optString(s, 'interpolation', path) ?? 'LINEAR';
    const interpolation = Object.hasOwn(INTERPOLATIONS, interpName) ? INTERPOLATIONS[interpName] : undefined;
    if (interpolation === undefined) throw new GltfError(`${path}.interpolation`, `${describe(interpName)} is not LINEAR, STEP or CUBICSPLINE`);
    const inputData = this.accessor(s.input, `${path}.input`);
    const outData = this.accessor(s.output, `${path}.output`);
    const cacheKey = `${s.input}/${s.output}/${interpolation}/${targetPath}/${components}`;
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
      throw new GltfError(`${path}.output`, `has ${outData.array.length} values; ${keys} keys of ${interpName} ${TARGET_NAMES[targetPath]} need ${expected}`);
    }
    const values = this.floatValues(s.output, `${path}.output`);
    // Rotation keys are unit quaternions by spec; quantised or sloppy ones are normalised
    // once here so sampling never has to (spline tangents are left as they are).
    let ownValues = values;
    let slerpAngle: Float64Array | undefined;
    let slerpInvSin: Float64Array | undefined;
    if (targetPath === TargetPath.ROTATION) {
      this.budget.charge(values.length * 4 + keys * 16, `${path}.output`);
      ownValues = values.slice();
      const valueOffset = interpolation === Interpolation.CUBICSPLINE ? 4 : 0;
      const tolerance = outData.componentType === ComponentType.BYTE ? 0.02 : QUAT_LENGTH_WARN;
      let worst = 1;
      for (let k = 0; k < keys; k++) {
        const o = k * perKey + valueOffset;
        const len = Math.hypot(ownValues[o], ownValues[o + 1], ownValues[o + 2], ownValues[o + 3]);
        if (len === 0) throw new GltfError(`${path}.output`, `rotation key ${k} is a zero quaternion`);
        if (Math.abs(len - 1) > Math.abs(worst - 1)) worst = len;
        normalizeQuat(ownValues, o);
      }
      if (Math.abs(worst - 1) > tolerance) this.warn(`${path}.output`, `rotation keys are not unit quaternions (worst length ${worst.toFixed(4)}); renormalised`);
      if (interpolation === Interpolation.LINEAR) ({ slerpAngle, slerpInvSin } = prepareSlerpKeys(ownValues, keys));
    }
    const sampler: Sampler = { interpolation, times, values: ownValues, components, slerpAngle, slerpInvSin };
    this.samplerCache.set(cacheKey, sampler);
    return sampler;
  }

  // ---------------------------------------------------------------- materials

  private readMaterials(): Material[] {
    const textureCount = optArray(this.root, 'textures', '').length;
    // The schema's ranges (glTF-Validator VALUE_NOT_IN_RANGE): out-of-range factors are
    // clamped with a warning, since the shader would only clamp them later or go wrong;
    // numbers beyond a 32-bit float (the GPU's) are refused.
    const inRange = (v: number, path: string, min: number, max: number): number => {
      if (!Number.isFinite(Math.fround(v))) throw new GltfError(path, `${v} does not fit a 32-bit float`);
      if (v >= min && v <= max) return v;
      const clamped = Math.min(Math.max(v, min), max);
      this.warn(path, `${v} is outside [${min}, ${max}]; clamped to ${clamped}`);
      return clamped;
    };
    const factors = (obj: JsonObject, key: string, path: string, fallback: readonly number[]): number[] => {
      const v = optNumbers(obj, key, path, fallback.length);
      return v ? v.map((x, i) => inRange(x, `${path}.${key}[${i}]`, 0, 1)) : [...fallback];
    };
    const info = (obj: JsonObject, key: string, path: string, scaleKey?: 'scale' | 'strength'): TextureInfo | undefined => {
      const t = optObject(obj, key, path);
      if (!t) return undefined;
      const p = `${path}.${key}`;
      const scale = scaleKey ? optNumber(t, scaleKey, p, 1) : 1;
      return {
        index: reqIndex(t, 'index', p, textureCount, 'textures'),
        texCoord: optInteger(t, 'texCoord', p, 0, 1),
        scale: scaleKey === 'strength' ? inRange(scale, `${p}.strength`, 0, 1) : inRange(scale, `${p}.scale`, -Infinity, Infinity),
      };
    };
    return optArray(this.root, 'materials', '').map((m, mi) => {
      const path = `materials[${mi}]`;
      const mat = asObject(m, path);
      const pbr = optObject(mat, 'pbrMetallicRoughness', path) ?? {};
      const ppath = `${path}.pbrMetallicRoughness`;
      const alphaMode = optString(mat, 'alphaMode', path) ?? 'OPAQUE';
      if (alphaMode !== 'OPAQUE' && alphaMode !== 'MASK' && alphaMode !== 'BLEND') {
        throw new GltfError(`${path}.alphaMode`, `${describe(alphaMode)} is not OPAQUE, MASK or BLEND`);
      }
      const bc = factors(pbr, 'baseColorFactor', ppath, [1, 1, 1, 1]);
      const em = factors(mat, 'emissiveFactor', path, [0, 0, 0]);
      return {
        name: optString(mat, 'name', path),
        baseColorFactor: [bc[0], bc[1], bc[2], bc[3]] as const,
        baseColorTexture: info(pbr, 'baseColorTexture', ppath),
        metallicFactor: inRange(optNumber(pbr, 'metallicFactor', ppath, 1), `${ppath}.metallicFactor`, 0, 1),
        roughnessFactor: inRange(optNumber(pbr, 'roughnessFactor', ppath, 1), `${ppath}.roughnessFactor`, 0, 1),
        metallicRoughnessTexture: info(pbr, 'metallicRoughnessTexture', ppath),
        normalTexture: info(mat, 'normalTexture', path, 'scale'),
        occlusionTexture: info(mat, 'occlusionTexture', path, 'strength'),
        emissiveTexture: info(mat, 'emissiveTexture', path),
        emissiveFactor: [em[0], em[1], em[2]] as const,
        alphaMode,
        alphaCutoff: inRange(optNumber(mat, 'alphaCutoff', path, 0.5), `${path}.alphaCutoff`, 0, Infinity),
        doubleSided: optBoolean(mat, 'doubleSided', path, false),
      };
    });
  }

  private readTextures(imageCount: number): Texture[] {
    const samplerCount = optArray(this.root, 'samplers', '').length;
    return optArray(this.root, 'textures', '').map((t, ti) => {
      const path = `textures[${ti}]`;
      const tex = asObject(t, path);
      return { sampler: optIndex(tex, 'sampler', path, samplerCount, 'samplers'), source: optIndex(tex, 'source', path, imageCount, 'images') };
    });
  }

  private readSamplers(): TextureSampler[] {
    return optArray(this.root, 'samplers', '').map((s, si) => {
      const path = `samplers[${si}]`;
      const obj = asObject(s, path);
      return {
        magFilter: obj.magFilter === undefined ? undefined : optInteger(obj, 'magFilter', path, 0),
        minFilter: obj.minFilter === undefined ? undefined : optInteger(obj, 'minFilter', path, 0),
        wrapS: optInteger(obj, 'wrapS', path, SamplerWrap.REPEAT),
        wrapT: optInteger(obj, 'wrapT', path, SamplerWrap.REPEAT),
      };
    });
  }
}

/** JSON numbers into 32-bit floats, refusing those that only a double can hold (1e308 would become Infinity). */
function float32Array(values: readonly number[], path: string): Float32Array {
  const out = Float32Array.from(values);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isFinite(out[i])) throw new GltfError(`${path}[${i}]`, `${values[i]} does not fit a 32-bit float`);
  }
  return out;
}

function sameTimes(a: Float32Array, b: Float32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** "accessors[3], accessors[7] and 2 more are" — a short list for a warning. */
function listOf(indices: number[], what: string): string {
  const shown = indices.slice(0, 5).map((i) => `${what}[${i}]`).join(', ');
  const more = indices.length > 5 ? ` and ${indices.length - 5} more` : '';
  return `${shown}${more} ${indices.length === 1 ? 'is' : 'are'}`;
}

const TARGET_PATHS: Readonly<Record<string, TargetPath>> = {
  translation: TargetPath.TRANSLATION,
  rotation: TargetPath.ROTATION,
  scale: TargetPath.SCALE,
  weights: TargetPath.WEIGHTS,
};
const TARGET_NAMES = ['translation', 'rotation', 'scale', 'weights'];
const INTERPOLATIONS: Readonly<Record<string, Interpolation>> = {
  LINEAR: Interpolation.LINEAR,
  STEP: Interpolation.STEP,
  CUBICSPLINE: Interpolation.CUBICSPLINE,
};
