/**
 * EXT_mesh_gpu_instancing fixtures built in code: one emissive quad (a square of half size
 * `halfSize` in the XY plane, facing +z) on a node whose instances come from the given
 * accessors. Used by the loader, renderer and bake tests.
 */
import { GltfBuilder, type ComponentArray, type GltfNodeJson } from '../../src/gltf/builder.ts';

export interface InstanceAttribute {
  readonly data: ComponentArray;
  readonly type: 'VEC3' | 'VEC4' | 'SCALAR';
  readonly normalized?: boolean;
}

export interface InstancedQuadOptions {
  /** Instance attributes by name (TRANSLATION, ROTATION, SCALE, `_ID`…). */
  readonly attributes: Record<string, InstanceAttribute>;
  /** The node's own TRS. */
  readonly node?: Pick<GltfNodeJson, 'translation' | 'rotation' | 'scale'>;
  readonly halfSize?: number;
  /** Make the mesh skinned (JOINTS_0/WEIGHTS_0 on joint 0) and give the node a skin. */
  readonly skinned?: boolean;
  /** Draw the quad as a LINE_LOOP instead of triangles. */
  readonly lines?: boolean;
  /** Also add an uninstanced copy of the quad at this translation. */
  readonly plainCopyAt?: readonly [number, number, number];
  readonly extensionsUsed?: readonly string[];
  /** Lists the extension in extensionsRequired too. */
  readonly required?: boolean;
}

export const EXT = 'EXT_mesh_gpu_instancing';

/** The fixture's quad mesh (emissive white, facing +z) in `b`; returns the mesh index. */
export function addQuadMesh(b: GltfBuilder, o: Pick<InstancedQuadOptions, 'halfSize' | 'skinned' | 'lines'> = {}): number {
  const h = o.halfSize ?? 0.25;
  const attributes: Record<string, number> = {
    POSITION: b.addAccessor(Float32Array.of(-h, -h, 0, h, -h, 0, h, h, 0, -h, h, 0), 'VEC3', { minMax: true }),
    NORMAL: b.addAccessor(Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1), 'VEC3'),
  };
  if (o.skinned) {
    attributes.JOINTS_0 = b.addAccessor(new Uint8Array(16), 'VEC4');
    attributes.WEIGHTS_0 = b.addAccessor(Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), 'VEC4');
  }
  const material = b.addMaterial({
    pbrMetallicRoughness: { baseColorFactor: [0, 0, 0, 1], metallicFactor: 0, roughnessFactor: 1 },
    emissiveFactor: [1, 1, 1],
  });
  const indices = o.lines ? Uint16Array.of(0, 1, 2, 3) : Uint16Array.of(0, 1, 2, 0, 2, 3);
  return b.addMesh({
    primitives: [{ attributes, indices: b.addAccessor(indices, 'SCALAR'), material, ...(o.lines ? { mode: 2 } : {}) }],
  });
}

/** The GLB of the fixture. */
export function buildInstancedQuad(o: InstancedQuadOptions): Uint8Array {
  const b = new GltfBuilder('instancing fixture');
  const mesh = addQuadMesh(b, o);
  const instanceAttributes: Record<string, number> = {};
  for (const [name, a] of Object.entries(o.attributes)) {
    instanceAttributes[name] = b.addAccessor(a.data, a.type, a.normalized ? { normalized: true } : {});
  }
  const roots: number[] = [];
  const node: GltfNodeJson = { mesh, ...o.node, extensions: { [EXT]: { attributes: instanceAttributes } } };
  if (o.skinned) {
    const joint = b.addNode({ name: 'joint' });
    roots.push(joint);
    node.skin = b.addSkin({ joints: [joint] });
  }
  roots.push(b.addNode(node));
  if (o.plainCopyAt) roots.push(b.addNode({ mesh, translation: [...o.plainCopyAt] }));
  b.addScene({ nodes: roots });
  b.json.extensionsUsed.push(EXT, ...(o.extensionsUsed ?? []));
  if (o.required) b.json.extensionsRequired.push(EXT);
  return b.toGlb();
}

/** TRANSLATION as floats. */
export const translations = (...xyz: number[]): InstanceAttribute => ({ data: Float32Array.from(xyz), type: 'VEC3' });
