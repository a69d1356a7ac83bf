import type { AccessorSource } from './accessors.ts';
import { readAnimations } from './animations.ts';
import { TargetPath } from './constants.ts';
import { GltfError } from './errors.ts';
import { readVariantNames } from './extensions/khr-materials-variants.ts';
import { findExtension, loadMaterialExtensions } from './extensions/registry.ts';
import { usesLazyMaterialExtensions } from './extensions/material-presence.ts';
import { loadVrmDependents } from './extensions/vrm-dependents.ts';
import { hasVrmParts } from './extensions/vrm-presence.ts';
import { hasInstancedNodes } from './extensions/instancing-presence.ts';
import { hasPointerChannels } from './extensions/pointer-presence.ts';
import { parseGltfBytes } from './glb.ts';
import { asObject, describe, optArray, optString, type JsonObject } from './json.ts';
import { readMaterials, readSamplers, readTextures } from './materials.ts';
import { readMeshes } from './meshes.ts';
import type { Model } from './model.ts';
import { tellModelShape, type ModelShape } from './model-shape.ts';
import { buildHierarchy, readNodes } from './nodes.ts';
import { ReadContext } from './read-context.ts';
import { loadBuffers, loadImages, type ResourceOptions } from './resources.ts';
import { readMeshNodes, readScene } from './scene.ts';
import { readSkins, warnUnusedSkins } from './skins.ts';
import { NodeTree } from './node-tree.ts';

export { decodeDataUri } from './resources.ts';

/**
 * Options of `loadGltf`: a name for the model, and where and how its external files (buffers, images) are
 * read.
 */
export interface LoadOptions extends ResourceOptions {
  /** Name recorded in the model (usually the file name). */
  readonly name?: string;
  /**
   * Told what the JSON says of the draws (model-shape.ts) once it is parsed, before any buffer
   * is read or image decoded: a renderer starts compiling their pipelines (Renderer.forecast).
   * Not called for a file whose JSON cannot say it.
   */
  readonly onShape?: (shape: ModelShape) => void;
}

/** Loads a .glb or .gltf (JSON) file's bytes into a validated, immutable model. */
export async function loadGltf(bytes: Uint8Array, options: LoadOptions = {}): Promise<Model> {
  const { json, bin: glbBin } = parseGltfBytes(bytes);
  const root = asObject(json, '(root)');
  const asset = asObject(root.asset, 'asset');
  const version = optString(asset, 'version', 'asset');
  if (version === undefined || !/^2\.\d+$/.test(version)) {
    throw new GltfError('asset.version', `glTF version ${describe(version)} is not supported (only 2.x)`);
  }
  checkRequiredExtensions(root);
  // Told before any buffer is read (or once the material readers it needs have loaded).
  const shapeTold = options.onShape ? tellModelShape(root, options.onShape) : undefined;
  shapeTold?.catch(() => {}); // awaited after the buffers: a failure is reported there
  // A plain glTF does not fetch the VRM readers, nor the code above this layer that a VRM model
  // needs (their chunks, in a built page); a VRM file fetches them while it decodes.
  const vrmCode = hasVrmParts(root, Array.isArray(root.nodes) ? root.nodes : []) ? loadVrmCode() : undefined;
  // Likewise the readers of the less common material extensions (VRM 0.x's MToon is converted by them too).
  const materialReaders = usesLazyMaterialExtensions(root) || vrmCode ? quietly(loadMaterialExtensions()) : undefined;
  const instancing = hasInstancedNodes(Array.isArray(root.nodes) ? root.nodes : []) ? quietly(import('./extensions/ext-mesh-gpu-instancing.ts')) : undefined;
  const pointerReader = hasPointerChannels(root) ? quietly(import('./extensions/khr-animation-pointer-reader.ts')) : undefined;
  const src = await loadBuffers(root, bytes.byteLength, glbBin, options);
  const ctx = new ReadContext(root, src);
  // Checked before the images are fetched, so a file wrong in both reports its nodes.
  const nodesJson = optArray(root, 'nodes', '');
  const images = await loadImages(root, src, options);
  const vrmReaders = vrmCode ? await vrmCode : undefined;

  // Each section reads only what earlier ones produced; this order is also the order in
  // which a file with several problems reports them.
  const skinCount = optArray(root, 'skins', '').length;
  await decodeCompressedPrimitives(root, ctx, src);
  const variants = readVariantNames(ctx);
  const meshes = readMeshes(ctx);
  const nodes = readNodes(ctx, nodesJson, skinCount, meshes);
  const hierarchy = buildHierarchy(ctx, nodesJson, nodes);
  const humanoid = vrmReaders?.readVrmHumanoid(ctx, nodes.length);
  const skins = readSkins(ctx, nodes, hierarchy, new NodeTree(hierarchy));
  const animations = readAnimations(ctx, hierarchy, meshes, nodes, await pointerReader);
  const markAnimatedMatrices = hierarchy.useMatrix;
  for (const clip of animations) {
    for (const ch of clip.channels) if (ch.path !== TargetPath.WEIGHTS) markAnimatedMatrices[ch.slot] = 0;
  }
  const { scene, sceneRoots, inScene } = readScene(ctx, nodes);
  const meshNodes = readMeshNodes(ctx, nodes, meshes, skins, scene, inScene, (await instancing)?.readMeshInstances);
  ctx.warnUnusedAccessors();
  warnUnusedSkins(ctx, nodes, skins.length);
  await materialReaders;
  await shapeTold;
  const materials = readMaterials(ctx);
  const textures = readTextures(ctx, images.length);
  const vrmInput = {
    ctx, nodes, meshes, hierarchy, nodesJson, humanoid, materialCount: materials.length, textureCount: textures.length,
    parent: nodes.map((n) => n.parent), materialNames: materials.map((m) => m.name),
  };
  const vrm = vrmReaders?.readVrm(vrmInput);
  const clips = vrmReaders ? vrmReaders.vrmAnimationClips(vrmInput, animations) : animations;
  return Object.freeze({
    name: options.name ?? 'model',
    nodes, hierarchy, meshes, skins, animations: clips, scene, sceneRoots, inScene, meshNodes,
    // VRM 0.x MToon lives in the VRM extension: converted to MToon 1.0 on its materials.
    materials: vrmReaders && vrm?.materialProperties ? vrmReaders.convertVrm0Materials(materials, vrm.materialProperties, (path, message) => ctx.warn(path, message)) : materials,
    textures,
    samplers: readSamplers(ctx),
    images,
    warnings: ctx.warnings,
    ...(variants.length > 0 ? { variants } : {}),
    ...(humanoid ? { humanoid } : {}),
    ...(vrm ? { vrm } : {}),
    loadBudget: src.budget.state(),
  });
}

/**
 * The VRM readers and what higher layers registered for VRM models (vrm-dependents.ts), started
 * together.
 */
function loadVrmCode(): Promise<typeof import('./extensions/vrm-readers.ts')> {
  return quietly(Promise.all([import('./extensions/vrm-readers.ts'), loadVrmDependents()]).then(([readers]) => readers));
}

/** `promise`, whose rejection is seen where it is awaited, not as an unhandled one when the load failed earlier. */
function quietly<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/**
 * Runs the primitive decoders (Draco) of the extensions the file says it uses (as three.js
 * does; a name only in `extensionsRequired`, which glTF forbids, counts as used too).
 */
async function decodeCompressedPrimitives(root: JsonObject, ctx: ReadContext, src: AccessorSource): Promise<void> {
  for (const name of new Set([...optArray(root, 'extensionsUsed', ''), ...optArray(root, 'extensionsRequired', '')])) {
    const extension = typeof name === 'string' ? findExtension(name) : undefined;
    if (extension?.decodePrimitives) await extension.decodePrimitives(ctx, src);
  }
}

/** Refuses a file that needs an extension the loader does not have (extensions/registry.ts). */
function checkRequiredExtensions(root: JsonObject): void {
  const required = optArray(root, 'extensionsRequired', '');
  const unsupported = required.filter((e) => typeof e !== 'string' || findExtension(e) === undefined);
  if (unsupported.length > 0) {
    const names = unsupported.slice(0, 8).map((e) => (typeof e === 'string' ? e : describe(e)));
    throw new GltfError('extensionsRequired', `unsupported required extension(s): ${names.join(', ')}${unsupported.length > 8 ? ', …' : ''}`);
  }
}
