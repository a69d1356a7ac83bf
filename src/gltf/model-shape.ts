/**
 * What a file's JSON alone says about the draws of the model it holds, before any buffer is
 * read or image decoded: per drawn primitive, how its attributes are stored, whether its node
 * skins it and mirrors it, whether morph targets move it, and its material. That is what picks
 * the pipelines that draw it, so a renderer can start compiling them while the rest of the file
 * downloads and decodes (gpu/draw/pipeline-forecast.ts).
 *
 * A forecast, not a load: nothing here validates (the loader does, and reports). A file this
 * cannot read gives no shape, a primitive it cannot read is left out, and what the loader later
 * reads differently (instance matrices, an animated material) only costs a pipeline compiled
 * for nothing. Bounded by the JSON: each node is visited once, each primitive gives at most
 * one draw per skinned/mirrored combination.
 */
import type { AccessorFormat } from './accessors.ts';
import { LoadBudget } from './budget.ts';
import { TYPE_COMPONENTS } from './constants.ts';
import { usesLazyMaterialExtensions } from './extensions/material-presence.ts';
import { loadMaterialExtensions, materialExtensionsLoaded } from './extensions/registry.ts';
import { isObject, type JsonObject } from './json.ts';
import { readMaterials } from './materials.ts';
import type { Material } from './model.ts';
import { ReadContext } from './read-context.ts';

/** A primitive as its JSON declares it. */
export interface PrimitiveShape {
  /** Its JSON path (`meshes[0].primitives[1]`). */
  readonly path: string;
  /** glTF primitive mode (PrimitiveMode). */
  readonly mode: number;
  /** Its attributes' storage, by attribute name. */
  readonly attributes: Readonly<Record<string, AccessorFormat>>;
  /** Which attributes some morph target moves. */
  readonly morphs: { readonly positions: boolean; readonly normals: boolean; readonly tangents: boolean };
  /** Index into `materials` (-1: the glTF default material). */
  readonly material: number;
}

/** One way a primitive is drawn: by a skinned node or not, mirrored or not. */
export interface DrawShape {
  readonly primitive: PrimitiveShape;
  readonly skinned: boolean;
  /** Its node's world transform (at rest) flips the winding (glTF §3.7.4). */
  readonly mirrored: boolean;
}

/** What a file's JSON says of its draws before any buffer is read: the pipelines its first frame needs (LoadOptions.onShape, Renderer.forecast). */
export interface ModelShape {
  /** Each distinct draw of the scene's mesh nodes. */
  readonly draws: readonly DrawShape[];
  readonly materials: readonly Material[];
}

/** Root extension of VRM 0.x, whose materials are converted to MToon after reading: not forecast. */
const VRM0 = 'VRM';
/** Primitives decoded by a codec bring their own storage (Draco): not forecast. */
const DRACO = 'KHR_draco_mesh_compression';

/**
 * The shape of the model in `root` (a parsed glTF JSON), or undefined when the JSON cannot say it,
 * or cannot say it yet: a material extension whose reader loads lazily (MToon, clearcoat…) and has
 * not arrived would read as plain PBR, a pipeline compiled for nothing (tellModelShape waits for it).
 */
export function readModelShape(root: JsonObject): ModelShape | undefined {
  try {
    if (isObject(root.extensions) && root.extensions[VRM0] !== undefined) return undefined;
    if (awaitsMaterialReaders(root)) return undefined;
    const ctx = new ReadContext(root, { accessors: list(root.accessors), bufferViews: [], buffers: [], budget: LoadBudget.forInput(0) });
    const materials = readMaterials(ctx);
    const meshes = list(root.meshes).map((m, mi) => list(isObject(m) ? m.primitives : undefined).map((p, pi) => primitiveShape(root, p, `meshes[${mi}].primitives[${pi}]`)));
    return { draws: sceneDraws(root, meshes), materials };
  } catch {
    return undefined;
  }
}

/**
 * Tells `onShape` the shape of the model in `root` (when the JSON can say it): at once, or, when
 * its materials need the lazily loaded readers (extensions/registry.ts) and they have not
 * arrived, as soon as they have. Returns undefined when it told (or had nothing to tell) at once;
 * else a promise that settles once told, rejected if the readers failed to load.
 */
export function tellModelShape(root: JsonObject, onShape: (shape: ModelShape) => void): Promise<void> | undefined {
  const tell = (): void => {
    const shape = readModelShape(root);
    if (shape) onShape(shape);
  };
  if (!awaitsMaterialReaders(root)) {
    tell();
    return undefined;
  }
  return loadMaterialExtensions().then(tell);
}

function awaitsMaterialReaders(root: JsonObject): boolean {
  return !materialExtensionsLoaded() && usesLazyMaterialExtensions(root);
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function primitiveShape(root: JsonObject, p: unknown, path: string): PrimitiveShape | undefined {
  if (!isObject(p) || !isObject(p.attributes) || (isObject(p.extensions) && p.extensions[DRACO] !== undefined)) return undefined;
  const accessors = list(root.accessors);
  const attributes: Record<string, AccessorFormat> = {};
  for (const [name, index] of Object.entries(p.attributes)) {
    const accessor = typeof index === 'number' ? accessors[index] : undefined;
    if (!isObject(accessor) || typeof accessor.componentType !== 'number' || typeof accessor.type !== 'string') return undefined;
    attributes[name] = { componentType: accessor.componentType as AccessorFormat['componentType'], normalized: accessor.normalized === true, components: TYPE_COMPONENTS[accessor.type] ?? 0 };
  }
  const targets = list(p.targets).filter(isObject);
  return {
    path,
    mode: typeof p.mode === 'number' ? p.mode : 4,
    attributes,
    morphs: {
      positions: targets.some((t) => t.POSITION !== undefined),
      normals: targets.some((t) => t.NORMAL !== undefined),
      tangents: targets.some((t) => t.TANGENT !== undefined),
    },
    material: typeof p.material === 'number' ? p.material : -1,
  };
}

/** The distinct draws of the scene's mesh nodes (every root node's without scenes, as the loader reads them). */
function sceneDraws(root: JsonObject, meshes: readonly (readonly (PrimitiveShape | undefined)[])[]): DrawShape[] {
  const nodes = list(root.nodes);
  const scenes = list(root.scenes);
  let roots: unknown[];
  if (scenes.length > 0) {
    const scene = scenes[typeof root.scene === 'number' ? root.scene : 0];
    roots = isObject(scene) ? list(scene.nodes) : [];
  } else {
    const child = new Set(nodes.flatMap((n) => (isObject(n) ? list(n.children) : [])));
    roots = nodes.map((_, i) => i).filter((i) => !child.has(i));
  }
  const seen = new Set<unknown>();
  const draws = new Map<string, DrawShape>();
  const stack: [unknown, boolean][] = roots.map((r) => [r, false]);
  while (stack.length > 0) {
    const [index, parentMirrored] = stack.pop()!;
    if (seen.has(index)) continue;
    seen.add(index);
    const node = typeof index === 'number' ? nodes[index] : undefined;
    if (!isObject(node)) continue;
    const mirrored = parentMirrored !== (localDeterminant(node) < 0);
    for (const child of list(node.children)) stack.push([child, mirrored]);
    const primitives = typeof node.mesh === 'number' ? meshes[node.mesh] ?? [] : [];
    for (const primitive of primitives) {
      if (!primitive) continue;
      const skinned = typeof node.skin === 'number' && primitive.attributes.JOINTS_0 !== undefined && primitive.attributes.WEIGHTS_0 !== undefined;
      const key = `${primitive.path} ${skinned} ${mirrored}`;
      if (!draws.has(key)) draws.set(key, { primitive, skinned, mirrored });
    }
  }
  return [...draws.values()];
}

/** The determinant of a node's local transform's 3×3 part (a unit rotation's is 1). */
function localDeterminant(node: JsonObject): number {
  const m = node.matrix;
  if (Array.isArray(m) && m.length === 16) {
    const a = m as number[];
    return a[0] * (a[5] * a[10] - a[6] * a[9]) - a[4] * (a[1] * a[10] - a[2] * a[9]) + a[8] * (a[1] * a[6] - a[2] * a[5]);
  }
  const s = node.scale;
  return Array.isArray(s) && s.length === 3 ? (s[0] as number) * (s[1] as number) * (s[2] as number) : 1;
}
