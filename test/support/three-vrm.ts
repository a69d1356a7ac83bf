/**
 * pixiv's three-vrm 3.x (the VRM reference implementation) in Node, as the oracle for the VRM
 * pose steps: a file is parsed by three.js's GLTFLoader with three-vrm's loader plugins.
 *
 * Nothing needs a DOM: images are never decoded (a stand-in plugin gives every texture an
 * empty three.js Texture, so materials keep their texture slots and KHR_texture_transform,
 * which is what the expression texture-transform binds move), and MToon is taken out of the
 * JSON so materials stay three.js's glTF ones, the same fallback our renderer draws today.
 */
import { Texture } from 'three';
import { GLTFLoader, type GLTF, type GLTFParser } from 'three/examples/jsm/loaders/GLTFLoader.js';
import {
  VRMLoaderPlugin, VRMNodeConstraintLoaderPlugin, VRMSpringBoneLoaderPlugin, type VRM, type VRMNodeConstraintManager, type VRMSpringBoneManager,
} from '@pixiv/three-vrm';
import { VRMAnimationLoaderPlugin, type VRMAnimation } from '@pixiv/three-vrm-animation';
import { embedDataUris, packGlb, splitGltf } from './three-node.ts';

type Json = Record<string, unknown>;

/** Gives every texture an undecoded three.js Texture (GLTFLoader still applies samplers and transforms). */
class StandInTextures {
  readonly name = 'StandInTextures';
  constructor(private readonly parser: GLTFParser) {}
  loadTexture(index: number): Promise<Texture> {
    const texture = new Texture();
    texture.name = `texture ${index}`;
    texture.flipY = false;
    void this.parser;
    return Promise.resolve(texture);
  }
}

function prepare(bytes: Uint8Array): ArrayBuffer {
  const split = splitGltf(bytes);
  const json = split.json;
  const bin = split.bin ?? embedDataUris(json);
  for (const m of (json.materials ?? []) as Json[]) {
    const ext = m.extensions as Json | undefined;
    if (ext) delete ext.VRMC_materials_mtoon;
  }
  const vrm0 = (json.extensions as Json | undefined)?.VRM as Json | undefined;
  if (vrm0) delete vrm0.materialProperties;
  return packGlb(json, bin);
}

async function parse(bytes: Uint8Array, register: (parser: GLTFParser) => unknown): Promise<GLTF> {
  const loader = new GLTFLoader();
  loader.register((parser) => new StandInTextures(parser) as never);
  loader.register(register as never);
  const warn = console.warn;
  // three-vrm reports what it skips on the console; the tests check what matters themselves.
  console.warn = () => {};
  try {
    return await loader.parseAsync(prepare(bytes), '');
  } finally {
    console.warn = warn;
  }
}

/** The whole VRM (humanoid, expressions, look-at, springs, constraints) of a VRM file. */
export async function loadThreeVrm(bytes: Uint8Array, { autoUpdateHumanBones = false } = {}): Promise<{ gltf: GLTF; vrm: VRM }> {
  // Off unless asked: the tests pose raw bones themselves, which the normalized rig would overwrite.
  const gltf = await parse(bytes, (parser) => new VRMLoaderPlugin(parser, { autoUpdateHumanBones }));
  const vrm = gltf.userData.vrm as VRM | undefined;
  if (!vrm) throw new Error('three-vrm made no VRM of this file');
  // See loadThreeSpringBones: the spring bones' initial state, with the world matrices current.
  vrm.scene.updateMatrixWorld(true);
  vrm.springBoneManager?.setInitState();
  return { gltf, vrm };
}

/**
 * Only the spring bones (no humanoid needed): VRMC_springBone or VRM 0.x secondaryAnimation.
 *
 * three-vrm 3.5 imports VRMC_springBone before the scene's world matrices have ever been
 * computed (its 0.x import updates them first), so a 1.0 joint under a moved or rotated
 * ancestor starts with its tail at the wrong place and the first frames jolt. The initial
 * state is taken again here with the matrices current, as an application that resets the
 * springs after placing the model gets it.
 */
export async function loadThreeSpringBones(bytes: Uint8Array): Promise<{ gltf: GLTF; manager: VRMSpringBoneManager }> {
  const gltf = await parse(bytes, (parser) => new VRMSpringBoneLoaderPlugin(parser));
  const manager = gltf.userData.vrmSpringBoneManager as VRMSpringBoneManager | null;
  if (!manager) throw new Error('three-vrm found no spring bones in this file');
  gltf.scene.updateMatrixWorld(true);
  manager.setInitState();
  return { gltf, manager };
}

/** Only the node constraints (VRMC_node_constraint). */
export async function loadThreeConstraints(bytes: Uint8Array): Promise<{ gltf: GLTF; manager: VRMNodeConstraintManager }> {
  const gltf = await parse(bytes, (parser) => new VRMNodeConstraintLoaderPlugin(parser));
  const manager = gltf.userData.vrmNodeConstraintManager as VRMNodeConstraintManager | null;
  if (!manager) throw new Error('three-vrm found no node constraints in this file');
  return { gltf, manager };
}

/** A VRM animation (.vrma) parsed by three-vrm-animation's loader plugin. */
export async function loadThreeVrmAnimation(bytes: Uint8Array): Promise<VRMAnimation> {
  const gltf = await parse(bytes, (parser) => new VRMAnimationLoaderPlugin(parser));
  const animations = gltf.userData.vrmAnimations as VRMAnimation[] | undefined;
  if (!animations?.length) throw new Error('three-vrm-animation found no VRM animation in this file');
  return animations[0];
}

/** The three.js object of glTF node `index`. */
export function threeNode(gltf: GLTF, index: number) {
  const assoc = gltf.parser.associations as Map<unknown, { nodes?: number } | undefined>;
  for (const [object, a] of assoc) if (a?.nodes === index && (object as { isObject3D?: boolean }).isObject3D) return object as import('three').Object3D;
  throw new Error(`no three.js object for node ${index}`);
}
