/**
 * Running three.js's GLTFLoader and animation system in Node, as an independent
 * reference for our loader, pose evaluator and skinning.
 *
 * three.js needs a DOM only for images: textures, images and samplers are stripped
 * from the JSON before parsing (materials keep their factors), so nothing touches
 * `document`, `createImageBitmap` or `self.URL`. Geometry, skins and animations are
 * untouched, byte for byte.
 */
import { readFile } from 'node:fs/promises';
import {
  AnimationMixer, LoopOnce, Matrix3, Matrix4, QuaternionKeyframeTrack, Vector3,
  type AnimationAction, type AnimationClip, type Object3D, type SkinnedMesh,
} from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

type Json = Record<string, unknown>;

/** Splits a GLB into its JSON and BIN chunk, or parses a .gltf's JSON. */
export function splitGltf(bytes: Uint8Array): { json: Json; bin: Uint8Array | undefined } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || view.getUint32(0, true) !== GLB_MAGIC) {
    return { json: JSON.parse(new TextDecoder().decode(bytes)) as Json, bin: undefined };
  }
  let json: Json | undefined;
  let bin: Uint8Array | undefined;
  const length = view.getUint32(8, true);
  for (let offset = 12; offset + 8 <= length;) {
    const chunkLength = view.getUint32(offset, true);
    const type = view.getUint32(offset + 4, true);
    const data = bytes.subarray(offset + 8, offset + 8 + chunkLength);
    if (type === CHUNK_JSON) json = JSON.parse(new TextDecoder().decode(data)) as Json;
    else if (type === CHUNK_BIN && !bin) bin = data;
    offset += 8 + ((chunkLength + 3) & ~3);
  }
  if (!json) throw new Error('GLB has no JSON chunk');
  return { json, bin };
}

export function packGlb(json: Json, bin: Uint8Array | undefined): ArrayBuffer {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = (text.byteLength + 3) & ~3;
  const binLength = bin ? (bin.byteLength + 3) & ~3 : 0;
  const total = 12 + 8 + jsonLength + (bin ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, CHUNK_JSON, true);
  out.set(text, 20);
  out.fill(0x20, 20 + text.byteLength, 20 + jsonLength); // JSON pads with spaces
  if (bin) {
    const o = 20 + jsonLength;
    view.setUint32(o, binLength, true);
    view.setUint32(o + 4, CHUNK_BIN, true);
    out.set(bin, o + 8);
  }
  return out.buffer;
}

/** Removes everything image-related so GLTFLoader never needs a DOM. */
function stripImages(json: Json): void {
  delete json.images;
  delete json.textures;
  delete json.samplers;
  const materials = json.materials as Json[] | undefined;
  if (materials) {
    json.materials = materials.map((m) => {
      const pbr = (m.pbrMetallicRoughness ?? {}) as Json;
      return {
        name: m.name,
        pbrMetallicRoughness: {
          baseColorFactor: pbr.baseColorFactor,
          metallicFactor: pbr.metallicFactor,
          roughnessFactor: pbr.roughnessFactor,
        },
        alphaMode: m.alphaMode,
        alphaCutoff: m.alphaCutoff,
        doubleSided: m.doubleSided,
      };
    });
  }
}

/**
 * Moves a .gltf's data-URI buffers into one GLB BIN chunk (three's FileLoader needs
 * browser globals such as ProgressEvent), rebasing every bufferView onto it.
 */
export function embedDataUris(json: Json): Uint8Array | undefined {
  const buffers = (json.buffers ?? []) as Json[];
  if (buffers.length === 0) return undefined;
  const parts = buffers.map((b, i) => {
    const uri = b.uri;
    if (typeof uri !== 'string' || !uri.startsWith('data:')) throw new Error(`buffers[${i}]: only data: URIs are supported here`);
    return new Uint8Array(Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'));
  });
  const starts: number[] = [];
  let size = 0;
  for (const part of parts) {
    starts.push(size);
    size = (size + part.byteLength + 7) & ~7; // keep every accessor's alignment
  }
  const bin = new Uint8Array(size);
  parts.forEach((part, i) => bin.set(part, starts[i]));
  for (const view of (json.bufferViews ?? []) as Json[]) {
    const buffer = view.buffer as number;
    view.byteOffset = ((view.byteOffset as number | undefined) ?? 0) + starts[buffer];
    view.buffer = 0;
  }
  json.buffers = [{ byteLength: size }];
  return bin;
}

/** Parses a glTF/GLB file with three.js's GLTFLoader in Node. */
export async function loadThreeGltf(path: string): Promise<GLTF> {
  return loadThreeGltfBytes(await readFile(path));
}

/** Parses glTF/GLB bytes (e.g. a fixture built in code) with three.js's GLTFLoader in Node. */
export async function loadThreeGltfBytes(bytes: Uint8Array): Promise<GLTF> {
  const split = splitGltf(bytes);
  const json = split.json;
  const bin = split.bin ?? embedDataUris(json);
  stripImages(json);
  const data = packGlb(json, bin);
  const loader = new GLTFLoader();
  // three warns about things like unnormalised weights; the tests report their own findings.
  const warn = console.warn;
  console.warn = () => {};
  try {
    return await loader.parseAsync(data, '');
  } finally {
    console.warn = warn;
  }
}

/**
 * Normalises every quaternion key of three's rotation tracks in place and returns the
 * largest |1 - |q|| found. glTF requires unit rotation keys; three uses them as stored
 * (so a sloppy key like (0, 0, 0.707, 0.707) scales the joint by |q|² ≈ 0.9997), while
 * our loader normalises them. Normalising here compares the same interpretation.
 */
export function normalizeRotationKeys(clips: readonly AnimationClip[]): number {
  let worst = 0;
  for (const clip of clips) {
    for (const track of clip.tracks) {
      if (!(track instanceof QuaternionKeyframeTrack)) continue;
      const v = track.values;
      for (let i = 0; i + 3 < v.length; i += 4) {
        const len = Math.hypot(v[i], v[i + 1], v[i + 2], v[i + 3]);
        worst = Math.max(worst, Math.abs(1 - len));
        if (len > 0) { v[i] /= len; v[i + 1] /= len; v[i + 2] /= len; v[i + 3] /= len; }
      }
    }
  }
  return worst;
}

/** A three.js skinned mesh and the glTF node / mesh / primitive it was made from. */
export interface ThreeSkinnedPrimitive {
  readonly object: SkinnedMesh;
  readonly node: number;
  readonly mesh: number;
  readonly primitive: number;
}

/**
 * Every SkinnedMesh of the scene, mapped back to glTF indices through
 * `parser.associations` (a multi-primitive mesh becomes a Group whose children
 * carry `primitives`, the node index sits on the group).
 */
export function threeSkinnedPrimitives(gltf: GLTF): ThreeSkinnedPrimitive[] {
  const assoc = gltf.parser.associations as Map<unknown, { nodes?: number; meshes?: number; primitives?: number }>;
  const out: ThreeSkinnedPrimitive[] = [];
  gltf.scene.traverse((o) => {
    if (!(o as SkinnedMesh).isSkinnedMesh) return;
    const a = assoc.get(o);
    if (!a || a.meshes === undefined || a.primitives === undefined) throw new Error(`no glTF association for ${o.name}`);
    const node = a.nodes ?? (o.parent ? assoc.get(o.parent)?.nodes : undefined);
    if (node === undefined) throw new Error(`no glTF node for ${o.name}`);
    out.push({ object: o as SkinnedMesh, node, mesh: a.meshes, primitive: a.primitives });
  });
  return out;
}

/**
 * Poses three.js's scene at `time` seconds of `clip` the way an application would:
 * a fresh AnimationMixer, the action played once and clamped at its end (so times past
 * the end hold the last pose, as glTF sampling does), then world matrices and skeletons
 * updated. Call the returned function to stop the action, which restores the rest pose.
 */
export function poseThree(root: Object3D, clip: AnimationClip, time: number): () => void {
  const mixer = new AnimationMixer(root);
  const action: AnimationAction = mixer.clipAction(clip);
  action.setLoop(LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  mixer.setTime(time);
  root.updateMatrixWorld(true);
  root.traverse((o) => {
    if ((o as SkinnedMesh).isSkinnedMesh) (o as SkinnedMesh).skeleton.update();
  });
  return () => {
    mixer.stopAllAction();
    mixer.uncacheRoot(root);
    root.updateMatrixWorld(true);
  };
}

const vertex = new Vector3();

/** World-space skinned positions via three's own `getVertexPosition` (bones + morphs) and `matrixWorld`. */
export function threeSkinnedPositions(mesh: SkinnedMesh, out = new Float64Array(mesh.geometry.getAttribute('position').count * 3)): Float64Array {
  const count = mesh.geometry.getAttribute('position').count;
  for (let v = 0; v < count; v++) {
    mesh.getVertexPosition(v, vertex).applyMatrix4(mesh.matrixWorld);
    out[v * 3] = vertex.x; out[v * 3 + 1] = vertex.y; out[v * 3 + 2] = vertex.z;
  }
  return out;
}

const blend = new Matrix4();
const boneMatrix = new Matrix4();
const world = new Matrix4();
const normalMatrix = new Matrix3();

/**
 * World-space skinned normals, which three.js only computes in its shaders: the
 * blend M = matrixWorld · bindMatrixInverse · Σ wᵢ (boneWorldᵢ · boneInverseᵢ) · bindMatrix
 * is built from three's bones and normalised skin weights, and normals go through
 * three's `getNormalMatrix` (inverse-transpose of M's 3×3). Undefined without normals.
 */
export function threeSkinnedNormals(mesh: SkinnedMesh): Float64Array | undefined {
  const geometry = mesh.geometry;
  const normals = geometry.getAttribute('normal');
  if (!normals) return undefined;
  const skinIndex = geometry.getAttribute('skinIndex');
  const skinWeight = geometry.getAttribute('skinWeight');
  const { bones, boneInverses } = mesh.skeleton;
  const out = new Float64Array(normals.count * 3);
  const e = blend.elements;
  for (let v = 0; v < normals.count; v++) {
    e.fill(0);
    for (let i = 0; i < 4; i++) {
      const w = skinWeight.getComponent(v, i);
      if (w === 0) continue;
      const b = skinIndex.getComponent(v, i);
      boneMatrix.multiplyMatrices(bones[b].matrixWorld, boneInverses[b]);
      const m = boneMatrix.elements;
      for (let k = 0; k < 16; k++) e[k] += w * m[k];
    }
    world.multiplyMatrices(mesh.matrixWorld, mesh.bindMatrixInverse).multiply(blend).multiply(mesh.bindMatrix);
    normalMatrix.getNormalMatrix(world);
    vertex.fromBufferAttribute(normals, v).applyMatrix3(normalMatrix).normalize();
    out[v * 3] = vertex.x; out[v * 3 + 1] = vertex.y; out[v * 3 + 2] = vertex.z;
  }
  return out;
}
