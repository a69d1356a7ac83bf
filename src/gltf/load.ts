import { readAccessor, toFloat32, type AccessorData, type AccessorSource } from './accessors.ts';
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
import { composeTRS, decomposeTRS, setIdentity } from '../math/trs.ts';
import { normalizeQuat, prepareSlerpKeys } from '../math/quat.ts';

export interface LoadOptions {
  /** Name recorded in the model (usually the file name). */
  readonly name?: string;
  /**
   * Fetches an external resource named by a relative `uri` of a buffer or image
   * (already percent-decoded), resolved against the asset's location by the caller.
   * Without it, external URIs are an error.
   */
  readonly resolveUri?: (uri: string) => Promise<Uint8Array>;
}

/** A weight sum further than this from 1 is repaired and reported as a warning. */
const WEIGHT_SUM_WARN = 1e-3;
/** Sums closer than this to 1 are left as stored (quantisation noise). */
const WEIGHT_SUM_EXACT = 1e-6;

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
    throw new GltfError('extensionsRequired', `unsupported required extension(s): ${required.map(String).join(', ')}`);
  }
  const buffers = await loadBuffers(root, glbBin, options);
  const src: AccessorSource = {
    accessors: optArray(root, 'accessors', ''),
    bufferViews: optArray(root, 'bufferViews', ''),
    buffers,
  };
  return new ModelReader(root, src, options).read(await loadImages(root, src, options));
}

async function loadBuffers(root: JsonObject, glbBin: Uint8Array | undefined, options: LoadOptions): Promise<Uint8Array[]> {
  const list = optArray(root, 'buffers', '');
  const out: Uint8Array[] = [];
  for (let i = 0; i < list.length; i++) {
    const path = `buffers[${i}]`;
    const buf = asObject(list[i], path);
    const byteLength = reqInteger(buf, 'byteLength', path);
    const uri = optString(buf, 'uri', path);
    let bytes: Uint8Array;
    if (uri === undefined) {
      if (i !== 0 || !glbBin) throw new GltfError(`${path}.uri`, 'is missing and there is no GLB BIN chunk for it');
      bytes = glbBin;
    } else {
      bytes = await fetchUri(uri, `${path}.uri`, options);
    }
    if (bytes.byteLength < byteLength) {
      throw new GltfError(`${path}.byteLength`, `says ${byteLength} bytes but only ${bytes.byteLength} are available`);
    }
    out.push(bytes.subarray(0, byteLength));
  }
  return out;
}

async function fetchUri(uri: string, path: string, options: LoadOptions): Promise<Uint8Array> {
  if (uri.startsWith('data:')) return decodeDataUri(uri, path);
  if (!options.resolveUri) throw new GltfError(path, `external resource "${uri}" cannot be loaded without a base location`);
  let decoded: string;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    throw new GltfError(path, `"${uri}" is not a valid URI`);
  }
  try {
    return await options.resolveUri(decoded);
  } catch (e) {
    const reason = e instanceof GltfError ? e.problem : (e as Error).message;
    throw new GltfError(path, `could not load "${uri}": ${reason}`);
  }
}

export function decodeDataUri(uri: string, path: string): Uint8Array {
  const comma = uri.indexOf(',');
  if (comma < 0) throw new GltfError(path, 'data URI has no comma');
  const header = uri.slice(5, comma);
  const payload = uri.slice(comma + 1);
  if (!header.endsWith(';base64')) {
    return new TextEncoder().encode(decodeURIComponent(payload));
  }
  let binary: string;
  try {
    binary = atob(payload);
  } catch {
    throw new GltfError(path, 'data URI is not valid base64');
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

async function loadImages(root: JsonObject, src: AccessorSource, options: LoadOptions): Promise<Image[]> {
  const list = optArray(root, 'images', '');
  const out: Image[] = [];
  for (let i = 0; i < list.length; i++) {
    const path = `images[${i}]`;
    const img = asObject(list[i], path);
    const mimeType = optString(img, 'mimeType', path);
    const uri = optString(img, 'uri', path);
    let bytes: Uint8Array;
    const viewIndex = optIndex(img, 'bufferView', path, src.bufferViews.length, 'bufferViews');
    if (viewIndex >= 0) {
      const view = asObject(src.bufferViews[viewIndex], `bufferViews[${viewIndex}]`);
      const buffer = src.buffers[checkIndex(view.buffer, `bufferViews[${viewIndex}].buffer`, src.buffers.length, 'buffers')];
      const offset = optInteger(view, 'byteOffset', `bufferViews[${viewIndex}]`, 0);
      const length = reqInteger(view, 'byteLength', `bufferViews[${viewIndex}]`);
      if (offset + length > buffer.byteLength) throw new GltfError(`bufferViews[${viewIndex}]`, 'runs past the end of its buffer');
      bytes = buffer.subarray(offset, offset + length);
    } else if (uri !== undefined) {
      bytes = await fetchUri(uri, `${path}.uri`, options);
    } else {
      throw new GltfError(path, 'has neither uri nor bufferView');
    }
    out.push({ name: optString(img, 'name', path), mimeType, bytes });
  }
  return out;
}

/** Reads everything but buffers and images; one instance per load. */
class ModelReader {
  private readonly warnings: GltfWarning[] = [];
  private readonly nodesJson: unknown[];
  private readonly accessorCache = new Map<number, AccessorData>();

  constructor(
    private readonly root: JsonObject,
    private readonly src: AccessorSource,
    private readonly options: LoadOptions,
  ) {
    this.nodesJson = optArray(root, 'nodes', '');
  }

  read(images: Image[]): Model {
    const root = this.root;
    const meshCount = optArray(root, 'meshes', '').length;
    const skinCount = optArray(root, 'skins', '').length;
    const meshes = this.readMeshes();
    const nodes = this.readNodes(meshCount, skinCount, meshes);
    const hierarchy = this.buildHierarchy(nodes);
    const skins = this.readSkins(nodes, hierarchy);
    const animations = this.readAnimations(hierarchy, meshes, nodes);
    const markAnimatedMatrices = hierarchy.useMatrix;
    for (const clip of animations) {
      for (const ch of clip.channels) if (ch.path !== TargetPath.WEIGHTS) markAnimatedMatrices[ch.slot] = 0;
    }
    const { scene, sceneRoots, inScene } = this.readScene(nodes);
    const meshNodes: MeshNode[] = [];
    for (let n = 0; n < nodes.length; n++) {
      const node = nodes[n];
      if (!inScene[n] || node.mesh < 0) continue;
      let skin = node.skin;
      if (skin >= 0) {
        const mesh = meshes[node.mesh];
        if (!mesh.primitives.some((p) => p.influences > 0)) {
          this.warn(`nodes[${n}].skin`, 'node has a skin but its mesh has no JOINTS_0/WEIGHTS_0; drawn rigid');
          skin = -1;
        } else {
          const jointCount = skins[skin].joints.length;
          mesh.primitives.forEach((p, pi) => {
            if (p.maxJoint >= jointCount) {
              throw new GltfError(
                `meshes[${node.mesh}].primitives[${pi}].attributes.JOINTS_0`,
                `joint index ${p.maxJoint} is out of range for skins[${skin}] (used by nodes[${n}]) with ${jointCount} joints`,
              );
            }
          });
        }
      }
      meshNodes.push({ node: n, mesh: node.mesh, skin });
    }
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
    let data = this.accessorCache.get(i);
    if (!data) {
      data = readAccessor(this.src, i, usedAt);
      this.accessorCache.set(i, data);
    }
    return data;
  }

  private floatAccessor(index: unknown, usedAt: string, components: readonly number[]): Float32Array {
    const data = this.accessor(index, usedAt);
    if (!components.includes(data.components)) {
      throw new GltfError(usedAt, `accessors[${index}] has ${data.components} components, expected ${components.join(' or ')}`);
    }
    const out = toFloat32(data);
    for (let i = 0; i < out.length; i++) {
      if (!Number.isFinite(out[i])) throw new GltfError(usedAt, `accessors[${index}] has a non-finite value at component ${i}`);
    }
    return out;
  }

  // ---------------------------------------------------------------- nodes

  private readNodes(meshCount: number, skinCount: number, meshes: Mesh[]): NodeInfo[] {
    const count = this.nodesJson.length;
    const parent = new Int32Array(count).fill(-1);
    const childLists: number[][] = [];
    for (let n = 0; n < count; n++) {
      const path = `nodes[${n}]`;
      const node = asObject(this.nodesJson[n], path);
      const children = optArray(node, 'children', path).map((c, i) => checkIndex(c, `${path}.children[${i}]`, count, 'nodes'));
      for (let i = 0; i < children.length; i++) {
        const c = children[i];
        if (c === n) throw new GltfError(`${path}.children[${i}]`, 'a node cannot be its own child');
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
      const mesh = optIndex(node, 'mesh', path, meshCount, 'meshes');
      const skin = optIndex(node, 'skin', path, skinCount, 'skins');
      if (skin >= 0 && mesh < 0) this.warn(`${path}.skin`, 'skin on a node without a mesh is ignored');
      const w = node.weights;
      let weights: Float32Array = mesh >= 0 ? meshes[mesh].weights : new Float32Array(0);
      if (w !== undefined) {
        const list = optNumbers(node, 'weights', path, Array.isArray(w) ? w.length : -1)!;
        weights = Float32Array.from(list);
      }
      out.push({ name: optString(node, 'name', path), parent: parent[n], children: childLists[n], mesh, skin: mesh >= 0 ? skin : -1, weights });
    }
    return out;
  }

  private buildHierarchy(nodes: NodeInfo[]): Hierarchy {
    const count = nodes.length;
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
        restMatrix.set(matrix, slot * 16);
        useMatrix[slot] = 1;
        decomposeTRS(matrix, t, r, s);
      } else {
        const tv = optNumbers(node, 'translation', path, 3) ?? [0, 0, 0];
        const rv = optNumbers(node, 'rotation', path, 4) ?? [0, 0, 0, 1];
        const sv = optNumbers(node, 'scale', path, 3) ?? [1, 1, 1];
        t[0] = tv[0]; t[1] = tv[1]; t[2] = tv[2];
        r[0] = rv[0]; r[1] = rv[1]; r[2] = rv[2]; r[3] = rv[3];
        const len = Math.hypot(r[0], r[1], r[2], r[3]);
        if (len === 0) throw new GltfError(`${path}.rotation`, 'is a zero quaternion');
        if (Math.abs(len - 1) > 1e-3) this.warn(`${path}.rotation`, `quaternion length ${len.toFixed(4)} renormalised`);
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

  // ---------------------------------------------------------------- meshes

  private readMeshes(): Mesh[] {
    return optArray(this.root, 'meshes', '').map((m, mi) => {
      const path = `meshes[${mi}]`;
      const mesh = asObject(m, path);
      const prims = optArray(mesh, 'primitives', path);
      if (prims.length === 0) throw new GltfError(`${path}.primitives`, 'a mesh needs at least one primitive');
      const weightsList = mesh.weights === undefined ? [] : optNumbers(mesh, 'weights', path, Array.isArray(mesh.weights) ? mesh.weights.length : -1)!;
      const primitives = prims.map((p, pi) => this.readPrimitive(asObject(p, `${path}.primitives[${pi}]`), `${path}.primitives[${pi}]`));
      return { name: optString(mesh, 'name', path), primitives, weights: Float32Array.from(weightsList) };
    });
  }

  private readPrimitive(prim: JsonObject, path: string): Primitive {
    const attrs = asObject(prim.attributes, `${path}.attributes`);
    const apath = `${path}.attributes`;
    if (attrs.POSITION === undefined) throw new GltfError(`${apath}.POSITION`, 'is required');
    const positions = this.floatAccessor(attrs.POSITION, `${apath}.POSITION`, [3]);
    const vertexCount = positions.length / 3;
    const attribute = (name: string, components: readonly number[]): Float32Array | undefined => {
      if (attrs[name] === undefined) return undefined;
      const data = this.floatAccessor(attrs[name], `${apath}.${name}`, components);
      const n = data.length / this.accessor(attrs[name], `${apath}.${name}`).components;
      if (n !== vertexCount) throw new GltfError(`${apath}.${name}`, `has ${n} elements but POSITION has ${vertexCount}`);
      return data;
    };
    const normals = attribute('NORMAL', [3]);
    const tangents = attribute('TANGENT', [4]);
    const texcoords0 = attribute('TEXCOORD_0', [2]);
    const texcoords1 = attribute('TEXCOORD_1', [2]);
    let colors0 = attribute('COLOR_0', [3, 4]);
    if (colors0 && colors0.length === vertexCount * 3) {
      const rgba = new Float32Array(vertexCount * 4);
      for (let v = 0; v < vertexCount; v++) {
        rgba[v * 4] = colors0[v * 3]; rgba[v * 4 + 1] = colors0[v * 3 + 1]; rgba[v * 4 + 2] = colors0[v * 3 + 2]; rgba[v * 4 + 3] = 1;
      }
      colors0 = rgba;
    }

    const mode = optInteger(prim, 'mode', path, PrimitiveMode.TRIANGLES, 6);
    let indices: Uint16Array | Uint32Array | undefined;
    if (prim.indices !== undefined) {
      const data = this.accessor(prim.indices, `${path}.indices`);
      if (data.components !== 1) throw new GltfError(`${path}.indices`, 'must be a SCALAR accessor');
      const ct = data.componentType;
      if (ct !== ComponentType.UNSIGNED_BYTE && ct !== ComponentType.UNSIGNED_SHORT && ct !== ComponentType.UNSIGNED_INT) {
        throw new GltfError(`${path}.indices`, `componentType ${ct} is not an unsigned integer type`);
      }
      indices = ct === ComponentType.UNSIGNED_BYTE ? Uint16Array.from(data.array) : (data.array as Uint16Array | Uint32Array);
      for (let i = 0; i < indices.length; i++) {
        if (indices[i] >= vertexCount) throw new GltfError(`${path}.indices`, `index ${indices[i]} at position ${i} is out of range (${vertexCount} vertices)`);
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

  private readSkinAttributes(attrs: JsonObject, apath: string, vertexCount: number) {
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
    const influences = (sets * 4) as 4 | 8;
    const joints = new Uint16Array(vertexCount * influences);
    const weights = new Float32Array(vertexCount * influences);
    const jointSets: AccessorData[] = [];
    const weightSets: AccessorData[] = [];
    let maxJoint = -1;
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
      const wf = toFloat32(w);
      for (let v = 0; v < vertexCount; v++) {
        for (let c = 0; c < 4; c++) {
          const wv = wf[v * 4 + c];
          if (!Number.isFinite(wv) || wv < 0) throw new GltfError(wpath, `vertex ${v} has weight ${wv}; weights must be finite and non-negative`);
          joints[v * influences + set * 4 + c] = j.array[v * 4 + c];
          weights[v * influences + set * 4 + c] = wv;
          // Checked even at zero weight: the GPU reads every listed joint's matrix.
          if (j.array[v * 4 + c] > maxJoint) maxJoint = j.array[v * 4 + c];
        }
      }
      jointSets.push(j);
      weightSets.push(w);
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
    return { influences, joints, weights, maxJoint, jointSets, weightSets };
  }

  // ---------------------------------------------------------------- skins

  private readSkins(nodes: NodeInfo[], h: Hierarchy): Skin[] {
    return optArray(this.root, 'skins', '').map((s, si) => {
      const path = `skins[${si}]`;
      const skin = asObject(s, path);
      const jointList = optArray(skin, 'joints', path);
      if (jointList.length === 0) throw new GltfError(`${path}.joints`, 'a skin needs at least one joint');
      const joints = Int32Array.from(jointList.map((j, i) => checkIndex(j, `${path}.joints[${i}]`, nodes.length, 'nodes')));
      const seen = new Set<number>();
      joints.forEach((j, i) => {
        if (seen.has(j)) throw new GltfError(`${path}.joints[${i}]`, `nodes[${j}] is listed twice`);
        seen.add(j);
      });
      const count = joints.length;
      const inverseBindMatrices = new Float64Array(count * 16);
      if (skin.inverseBindMatrices !== undefined) {
        const ipath = `${path}.inverseBindMatrices`;
        const data = this.accessor(skin.inverseBindMatrices, ipath);
        if (data.components !== 16 || data.componentType !== ComponentType.FLOAT) throw new GltfError(ipath, 'must be a FLOAT MAT4 accessor');
        if (data.count < count) throw new GltfError(ipath, `has ${data.count} matrices for ${count} joints`);
        for (let i = 0; i < count * 16; i++) {
          const v = data.array[i];
          if (!Number.isFinite(v)) throw new GltfError(ipath, `matrix ${Math.floor(i / 16)} has a non-finite element`);
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
      const jointSlots = joints.map((j) => h.slotOf[j]);
      const indexOfNode = new Map<number, number>();
      joints.forEach((j, i) => indexOfNode.set(j, i));
      const jointParents = new Int32Array(count).fill(-1);
      for (let i = 0; i < count; i++) {
        for (let p = nodes[joints[i]].parent; p >= 0; p = nodes[p].parent) {
          const idx = indexOfNode.get(p);
          if (idx !== undefined) { jointParents[i] = idx; break; }
        }
      }
      const jointsParentFirst = Int32Array.from([...joints.keys()].sort((a, b) => jointSlots[a] - jointSlots[b]));
      return {
        name: optString(skin, 'name', path), joints, jointSlots, jointParents, jointsParentFirst, inverseBindMatrices, inverseBindAffine,
        skeleton: optIndex(skin, 'skeleton', path, nodes.length, 'nodes'),
      };
    });
  }

  // ---------------------------------------------------------------- animations

  private readAnimations(h: Hierarchy, meshes: Mesh[], nodes: NodeInfo[]): Clip[] {
    return optArray(this.root, 'animations', '').map((a, ai) => {
      const path = `animations[${ai}]`;
      const anim = asObject(a, path);
      const samplerJson = optArray(anim, 'samplers', path);
      const samplers: (Sampler | undefined)[] = new Array(samplerJson.length);
      const channels: Channel[] = [];
      const targeted = new Set<string>();
      const timelines: Float32Array[] = [];
      let duration = 0;
      optArray(anim, 'channels', path).forEach((c, ci) => {
        const cpath = `${path}.channels[${ci}]`;
        const ch = asObject(c, cpath);
        const samplerIndex = reqIndex(ch, 'sampler', cpath, samplerJson.length, `${path}.samplers`);
        const target = asObject(ch.target, `${cpath}.target`);
        if (target.node === undefined) return; // Allowed by the spec: the target lives in an extension.
        const node = reqIndex(target, 'node', `${cpath}.target`, nodes.length, 'nodes');
        const pathName = optString(target, 'path', `${cpath}.target`);
        const targetPath = TARGET_PATHS[pathName ?? ''];
        if (targetPath === undefined) {
          if (pathName === 'pointer') return; // KHR_animation_pointer, not supported: ignore.
          throw new GltfError(`${cpath}.target.path`, `${describe(pathName)} is not translation, rotation, scale or weights`);
        }
        const key = `${node}/${targetPath}`;
        if (targeted.has(key)) throw new GltfError(`${cpath}.target`, `nodes[${node}].${pathName} is already animated by another channel of this animation`);
        targeted.add(key);
        let components = targetPath === TargetPath.ROTATION ? 4 : 3;
        if (targetPath === TargetPath.WEIGHTS) {
          const mesh = nodes[node].mesh;
          if (mesh < 0) throw new GltfError(`${cpath}.target.node`, `weights channel targets nodes[${node}], which has no mesh`);
          components = meshes[mesh].primitives[0].targets.length;
          if (components === 0) throw new GltfError(`${cpath}.target.node`, `weights channel targets nodes[${node}], whose mesh has no morph targets`);
        }
        let sampler = samplers[samplerIndex];
        if (!sampler) {
          sampler = this.readSampler(asObject(samplerJson[samplerIndex], `${path}.samplers[${samplerIndex}]`), `${path}.samplers[${samplerIndex}]`, components, targetPath);
          samplers[samplerIndex] = sampler;
        } else if (sampler.components !== components) {
          throw new GltfError(`${cpath}.sampler`, `samplers[${samplerIndex}] is shared by channels with different value sizes`);
        }
        duration = Math.max(duration, sampler.times[sampler.times.length - 1]);
        let timeline = timelines.findIndex((t) => sameTimes(t, sampler!.times));
        if (timeline < 0) timeline = timelines.push(sampler.times) - 1;
        channels.push({ node, slot: h.slotOf[node], path: targetPath, sampler, timeline });
      });
      return { name: optString(anim, 'name', path), duration, channels, timelines };
    });
  }

  private readSampler(s: JsonObject, path: string, components: number, targetPath: TargetPath): Sampler {
    const interpName = optString(s, 'interpolation', path) ?? 'LINEAR';
    const interpolation = INTERPOLATIONS[interpName];
    if (interpolation === undefined) throw new GltfError(`${path}.interpolation`, `"${interpName}" is not LINEAR, STEP or CUBICSPLINE`);
    const inputData = this.accessor(s.input, `${path}.input`);
    if (inputData.components !== 1 || inputData.componentType !== ComponentType.FLOAT) {
      throw new GltfError(`${path}.input`, 'must be a FLOAT SCALAR accessor');
    }
    const times = inputData.array as Float32Array;
    for (let i = 0; i < times.length; i++) {
      if (!Number.isFinite(times[i]) || times[i] < 0) throw new GltfError(`${path}.input`, `key time ${times[i]} at key ${i} is not a finite non-negative number`);
      if (i > 0 && times[i] < times[i - 1]) throw new GltfError(`${path}.input`, `key times decrease at key ${i} (${times[i - 1]} → ${times[i]})`);
    }
    const keys = times.length;
    if (interpolation === Interpolation.CUBICSPLINE && keys < 2) throw new GltfError(`${path}.input`, 'CUBICSPLINE needs at least two keys');
    const outData = this.accessor(s.output, `${path}.output`);
    const values = toFloat32(outData);
    const perKey = interpolation === Interpolation.CUBICSPLINE ? 3 * components : components;
    const expected = keys * perKey;
    if (values.length !== expected) {
      throw new GltfError(`${path}.output`, `has ${values.length} values; ${keys} keys of ${interpName} ${TARGET_NAMES[targetPath]} need ${expected}`);
    }
    for (let i = 0; i < values.length; i++) {
      if (!Number.isFinite(values[i])) throw new GltfError(`${path}.output`, `value ${i} is not finite`);
    }
    // Rotation keys are unit quaternions by spec; quantised or sloppy ones are normalised
    // once here so sampling never has to (spline tangents are left as they are).
    let ownValues = values;
    let slerpAngle: Float64Array | undefined;
    let slerpInvSin: Float64Array | undefined;
    if (targetPath === TargetPath.ROTATION) {
      ownValues = values === outData.array ? values.slice() : values;
      const stride = perKey;
      const valueOffset = interpolation === Interpolation.CUBICSPLINE ? 4 : 0;
      for (let k = 0; k < keys; k++) normalizeQuat(ownValues, k * stride + valueOffset);
      if (interpolation === Interpolation.LINEAR) ({ slerpAngle, slerpInvSin } = prepareSlerpKeys(ownValues, keys));
    }
    return { interpolation, times, values: ownValues, components, slerpAngle, slerpInvSin };
  }

  // ---------------------------------------------------------------- materials

  private readMaterials(): Material[] {
    const textureCount = optArray(this.root, 'textures', '').length;
    const info = (obj: JsonObject, key: string, path: string, scaleKey?: string): TextureInfo | undefined => {
      const t = optObject(obj, key, path);
      if (!t) return undefined;
      const p = `${path}.${key}`;
      return {
        index: reqIndex(t, 'index', p, textureCount, 'textures'),
        texCoord: optInteger(t, 'texCoord', p, 0, 1),
        scale: scaleKey ? optNumber(t, scaleKey, p, 1) : 1,
      };
    };
    return optArray(this.root, 'materials', '').map((m, mi) => {
      const path = `materials[${mi}]`;
      const mat = asObject(m, path);
      const pbr = optObject(mat, 'pbrMetallicRoughness', path) ?? {};
      const ppath = `${path}.pbrMetallicRoughness`;
      const alphaMode = optString(mat, 'alphaMode', path) ?? 'OPAQUE';
      if (alphaMode !== 'OPAQUE' && alphaMode !== 'MASK' && alphaMode !== 'BLEND') {
        throw new GltfError(`${path}.alphaMode`, `"${alphaMode}" is not OPAQUE, MASK or BLEND`);
      }
      const bc = optNumbers(pbr, 'baseColorFactor', ppath, 4) ?? [1, 1, 1, 1];
      const em = optNumbers(mat, 'emissiveFactor', path, 3) ?? [0, 0, 0];
      return {
        name: optString(mat, 'name', path),
        baseColorFactor: [bc[0], bc[1], bc[2], bc[3]] as const,
        baseColorTexture: info(pbr, 'baseColorTexture', ppath),
        metallicFactor: optNumber(pbr, 'metallicFactor', ppath, 1),
        roughnessFactor: optNumber(pbr, 'roughnessFactor', ppath, 1),
        metallicRoughnessTexture: info(pbr, 'metallicRoughnessTexture', ppath),
        normalTexture: info(mat, 'normalTexture', path, 'scale'),
        occlusionTexture: info(mat, 'occlusionTexture', path, 'strength'),
        emissiveTexture: info(mat, 'emissiveTexture', path),
        emissiveFactor: [em[0], em[1], em[2]] as const,
        alphaMode,
        alphaCutoff: optNumber(mat, 'alphaCutoff', path, 0.5),
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
const INTERPOLATIONS: Readonly<Record<string, Interpolation>> = {
  LINEAR: Interpolation.LINEAR,
  STEP: Interpolation.STEP,
  CUBICSPLINE: Interpolation.CUBICSPLINE,
};
