import { composeTRS } from '../math/trs.ts';
import type { BudgetState } from './budget.ts';
import type { HumanoidMap } from './humanoid.ts';
import type { Channel, Clip, Hierarchy, Material, Mesh, MeshNode, Model, NodeInfo, Primitive, Skin, Texture, TextureInfo } from './model.ts';

/**
 * Several loaded models as one: each part's nodes, meshes, skins, materials, textures,
 * samplers and images follow the previous part's, every index shifted; a part with a `root`
 * gets a node of its own above its parentless nodes (a plain TRS node, at rest the identity),
 * whose rest transform places the whole part. The result is an ordinary Model — one upload,
 * one player, one pose — so everything that draws or animates one model draws them together.
 *
 * Nodes keep the parts' parent-first order part by part (a part's root slot comes right
 * before its nodes), so `Hierarchy` stays valid. Clips are made by `clips`: a combined clip
 * takes, per part, the channels of one of that part's clips (or none), so parts animate
 * together on one timeline. Vertex data, keys, inverse bind matrices and image bytes are
 * shared with the parts, not copied; the hierarchy's rest arrays are the composed model's own
 * (`setPartRoot` writes a root's transform into them).
 */

export interface ComposedPart {
  readonly model: Model;
  /** The name of a root node added above the part (its placement); absent: the part's nodes stay roots. */
  readonly root?: string;
}

export interface ComposedClip {
  readonly name: string;
  /** Per part: the index of the part's clip whose channels this clip plays, or −1 for none. */
  readonly sources: readonly number[];
}

export interface ComposedModel {
  readonly model: Model;
  /** Per part: the slot of its added root node, or −1 for a part without one. */
  readonly rootSlots: Int32Array;
}

interface Offsets {
  node: number;
  slot: number;
  /** 1 with an added root: the part's own nodes and slots start one after `node` / `slot`. */
  rootShift: number;
  mesh: number;
  skin: number;
  material: number;
  texture: number;
  sampler: number;
  image: number;
}

const EMPTY_WEIGHTS = new Float32Array(0);
const IDENTITY = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);

export function composeModels(name: string, parts: readonly ComposedPart[], clips: readonly ComposedClip[]): ComposedModel {
  if (parts.length === 0) throw new RangeError('composeModels: no parts');
  const offsets: Offsets[] = [];
  const total: Offsets = { node: 0, slot: 0, rootShift: 0, mesh: 0, skin: 0, material: 0, texture: 0, sampler: 0, image: 0 };
  for (const part of parts) {
    const m = part.model, shift = part.root === undefined ? 0 : 1;
    offsets.push({ ...total, rootShift: shift });
    total.node += m.nodes.length + shift;
    total.slot += m.hierarchy.count + shift;
    total.mesh += m.meshes.length;
    total.skin += m.skins.length;
    total.material += m.materials.length;
    total.texture += m.textures.length;
    total.sampler += m.samplers.length;
    total.image += m.images.length;
  }
  const variants = unionOf(parts.map((p) => p.model.variants ?? []));
  const rootSlots = new Int32Array(parts.length).fill(-1);
  const nodes: NodeInfo[] = [];
  const meshes: Mesh[] = [], skins: Skin[] = [], materials: Material[] = [], textures: Texture[] = [];
  const meshNodes: MeshNode[] = [], sceneRoots: number[] = [];
  const inScene = new Uint8Array(total.node);
  const hierarchy = emptyHierarchy(total.slot, total.node);
  parts.forEach((part, p) => {
    const m = part.model, o = offsets[p];
    const node = (i: number) => (i < 0 ? i : o.node + o.rootShift + i);
    const parentless = m.nodes.flatMap((n, i) => (n.parent < 0 ? [node(i)] : []));
    if (part.root !== undefined) {
      nodes.push({ name: part.root, parent: -1, children: parentless, mesh: -1, skin: -1, weights: EMPTY_WEIGHTS });
      inScene[o.node] = 1;
      sceneRoots.push(o.node);
      rootSlots[p] = o.slot;
    } else {
      for (const r of m.sceneRoots) sceneRoots.push(node(r));
    }
    for (const n of m.nodes) {
      nodes.push({
        name: n.name, parent: n.parent < 0 ? (part.root !== undefined ? o.node : -1) : node(n.parent), children: n.children.map(node),
        mesh: n.mesh < 0 ? -1 : n.mesh + o.mesh, skin: n.skin < 0 ? -1 : n.skin + o.skin, weights: n.weights,
      });
    }
    inScene.set(m.inScene, o.node + o.rootShift);
    appendHierarchy(hierarchy, m.hierarchy, o);
    for (const mn of m.meshNodes) {
      meshNodes.push({ ...mn, node: node(mn.node), mesh: mn.mesh + o.mesh, skin: mn.skin < 0 ? -1 : mn.skin + o.skin });
    }
    for (const mesh of m.meshes) meshes.push({ ...mesh, primitives: mesh.primitives.map((prim) => shiftPrimitive(prim, o, m.variants ?? [], variants)) });
    for (const skin of m.skins) {
      skins.push({
        ...skin,
        joints: skin.joints.map(node),
        jointSlots: skin.jointSlots.map((s) => o.slot + o.rootShift + s),
        skeleton: skin.skeleton < 0 ? skin.skeleton : node(skin.skeleton),
      });
    }
    for (const material of m.materials) materials.push(shiftMaterial(material, o.texture));
    for (const texture of m.textures) textures.push(shiftTexture(texture, o));
  });
  const model: Model = {
    name,
    nodes,
    hierarchy,
    meshes,
    skins,
    animations: clips.map((clip) => composeClip(clip, parts, offsets)),
    scene: parts.some((p) => p.model.scene >= 0) ? 0 : -1,
    sceneRoots: Int32Array.from(sceneRoots),
    inScene,
    meshNodes,
    materials,
    textures,
    samplers: parts.flatMap((p) => p.model.samplers),
    images: parts.flatMap((p) => p.model.images),
    warnings: parts.flatMap((p) => p.model.warnings),
    ...(variants.length > 0 ? { variants } : {}),
    ...composeHumanoid(parts, offsets),
    ...composeBudget(parts.map((p) => p.model.loadBudget)),
  };
  return { model, rootSlots };
}

/**
 * Writes the rest transform of a composed model's added root node at `slot` (a slot of
 * `ComposedModel.rootSlots`): translation (3), rotation quaternion x y z w (4), scale (3), and
 * its rest matrix (so restWorldMatrices follows). Poses evaluated afterwards start from it
 * (AnimationPlayer.evaluate resets to rest first).
 */
export function setPartRoot(model: Model, slot: number, translation: ArrayLike<number>, rotation: ArrayLike<number>, scale: ArrayLike<number>): void {
  const h = model.hierarchy;
  if (slot < 0 || slot >= h.count || model.nodes[h.order[slot]].parent !== -1) throw new RangeError(`setPartRoot: slot ${slot} is not a root`);
  for (let c = 0; c < 3; c++) {
    h.restTranslation[slot * 3 + c] = translation[c];
    h.restScale[slot * 3 + c] = scale[c];
  }
  for (let c = 0; c < 4; c++) h.restRotation[slot * 4 + c] = rotation[c];
  composeTRS(h.restTranslation, h.restRotation, h.restScale, h.restMatrix, slot * 3, slot * 4, slot * 3, slot * 16);
}

type MutableHierarchy = { -readonly [K in keyof Hierarchy]: Hierarchy[K] };

function emptyHierarchy(slots: number, nodes: number): MutableHierarchy {
  return {
    count: 0,
    order: new Int32Array(slots),
    slotOf: new Int32Array(nodes).fill(-1),
    parentSlot: new Int32Array(slots),
    restTranslation: new Float64Array(slots * 3),
    restRotation: new Float64Array(slots * 4),
    restScale: new Float64Array(slots * 3),
    restMatrix: new Float64Array(slots * 16),
    useMatrix: new Uint8Array(slots),
  };
}

/** Appends a part's slots (after its root's, if it has one) to `h`. */
function appendHierarchy(h: MutableHierarchy, part: Hierarchy, o: Offsets): void {
  if (o.rootShift === 1) {
    const slot = o.slot;
    h.order[slot] = o.node;
    h.slotOf[o.node] = slot;
    h.parentSlot[slot] = -1;
    h.restRotation[slot * 4 + 3] = 1;
    h.restScale.fill(1, slot * 3, slot * 3 + 3);
    h.restMatrix.set(IDENTITY, slot * 16);
  }
  const first = o.slot + o.rootShift, nodeBase = o.node + o.rootShift;
  for (let s = 0; s < part.count; s++) {
    const slot = first + s;
    h.order[slot] = nodeBase + part.order[s];
    h.slotOf[nodeBase + part.order[s]] = slot;
    h.parentSlot[slot] = part.parentSlot[s] < 0 ? (o.rootShift === 1 ? o.slot : -1) : first + part.parentSlot[s];
  }
  h.restTranslation.set(part.restTranslation, first * 3);
  h.restRotation.set(part.restRotation, first * 4);
  h.restScale.set(part.restScale, first * 3);
  h.restMatrix.set(part.restMatrix, first * 16);
  h.useMatrix.set(part.useMatrix, first);
  h.count = first + part.count;
}

function shiftPrimitive(prim: Primitive, o: Offsets, partVariants: readonly string[], variants: readonly string[]): Primitive {
  const material = prim.material < 0 ? prim.material : prim.material + o.material;
  if (variants.length === 0) return { ...prim, material };
  // Per variant of the whole: the part's mapping for a variant of the same name, else the primitive's own material.
  const variantMaterials = Int32Array.from(variants, (name) => {
    const v = partVariants.indexOf(name);
    const mapped = v >= 0 && prim.variantMaterials ? prim.variantMaterials[v] : prim.material;
    return mapped < 0 ? mapped : mapped + o.material;
  });
  return { ...prim, material, variantMaterials };
}

/** A material with every TextureInfo it holds (any `…Texture` field with an `index`) pointing `by` textures further. */
function shiftMaterial(material: Material, by: number): Material {
  if (by === 0) return material;
  const out: Record<string, unknown> = { ...material };
  for (const [key, value] of Object.entries(material)) {
    if (value && typeof value === 'object' && typeof (value as TextureInfo).index === 'number' && typeof (value as TextureInfo).texCoord === 'number') {
      out[key] = { ...(value as TextureInfo), index: (value as TextureInfo).index + by };
    }
  }
  return out as unknown as Material;
}

function shiftTexture(texture: Texture, o: Offsets): Texture {
  const image = (i: number) => (i < 0 ? i : i + o.image);
  return {
    ...texture,
    sampler: texture.sampler < 0 ? texture.sampler : texture.sampler + o.sampler,
    source: image(texture.source),
    ...(texture.extensionSources ? { extensionSources: texture.extensionSources.map((s) => ({ ...s, source: image(s.source) })) } : {}),
  };
}

function composeClip(clip: ComposedClip, parts: readonly ComposedPart[], offsets: readonly Offsets[]): Clip {
  if (clip.sources.length !== parts.length) throw new RangeError(`composeModels: clip "${clip.name}" names ${clip.sources.length} sources for ${parts.length} parts`);
  const channels: Channel[] = [];
  const timelines: Float32Array[] = [];
  const materialTracks: NonNullable<Clip['materialTracks']>[number][] = [];
  let duration = 0;
  clip.sources.forEach((index, p) => {
    if (index < 0) return;
    const source = parts[p].model.animations[index];
    if (!source) throw new RangeError(`composeModels: clip "${clip.name}": part ${p} has no clip ${index}`);
    const o = offsets[p], first = timelines.length;
    for (const c of source.channels) {
      channels.push({ ...c, node: o.node + o.rootShift + c.node, slot: o.slot + o.rootShift + c.slot, timeline: first + c.timeline });
    }
    timelines.push(...source.timelines);
    for (const t of source.materialTracks ?? []) materialTracks.push({ ...t, material: t.material + o.material });
    duration = Math.max(duration, source.duration);
  });
  return { name: clip.name, duration, channels, timelines, ...(materialTracks.length > 0 ? { materialTracks } : {}) };
}

/** The first part's humanoid map that has one (a VRM avatar's), its nodes shifted: the whole has one set of humanoid bones. */
function composeHumanoid(parts: readonly ComposedPart[], offsets: readonly Offsets[]): { humanoid?: HumanoidMap } {
  const p = parts.findIndex((part) => part.model.humanoid !== undefined);
  if (p < 0) return {};
  const base = offsets[p].node + offsets[p].rootShift;
  return { humanoid: Object.fromEntries(Object.entries(parts[p].model.humanoid!).map(([bone, node]) => [bone, node! + base])) as HumanoidMap };
}

function unionOf(lists: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  for (const list of lists) for (const name of list) if (!out.includes(name)) out.push(name);
  return out;
}

/** The parts' load budgets added up (what was decoded later is charged to the sum); none without any. */
function composeBudget(budgets: readonly (BudgetState | undefined)[]): { loadBudget?: BudgetState } {
  const known = budgets.filter((b): b is BudgetState => b !== undefined);
  if (known.length === 0) return {};
  return {
    loadBudget: {
      limit: known.reduce((sum, b) => sum + b.limit, 0),
      inputBytes: known.reduce((sum, b) => sum + b.inputBytes, 0),
      usedBytes: known.reduce((sum, b) => sum + b.usedBytes, 0),
    },
  };
}
