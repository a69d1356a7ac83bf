/**
 * EXT_mesh_gpu_instancing: a mesh node drawn once per instance, each instance placed by
 * its TRANSLATION/ROTATION/SCALE in the node's space (world = node world · instance TRS).
 * The loader turns the accessors into one local matrix per instance (MeshNode.instances);
 * the renderer, the bounds and the bake's OBJ/GLB writers draw or write every instance.
 *
 * Where the extension is silent we follow three.js r187 (GLTFMeshGpuInstancing): a mesh
 * with points or lines is drawn once (the extension is ignored); a skinned mesh is drawn
 * as rigid instances of its bind-pose geometry (an InstancedMesh is never skinned); custom
 * `_` attributes are ignored (three.js reads `_COLOR_0` only; we list them in a warning).
 */
import { ComponentType, PrimitiveMode } from '../constants.ts';
import { GltfError } from '../errors.ts';
import { asObject, optArray } from '../json.ts';
import type { Mesh } from '../model.ts';
import type { ReadContext } from '../read-context.ts';
import { composeTRS } from '../../math/trs.ts';
import { EXT_MESH_GPU_INSTANCING } from './names.ts';


/** Bytes the loader keeps per instance (a float64 matrix). */
const INSTANCE_MATRIX_BYTES = 16 * 8;

/** Component types the spec allows per attribute; KHR_mesh_quantization adds the second list. */
const ALLOWED: Record<'TRANSLATION' | 'ROTATION' | 'SCALE', { components: number; plain: readonly string[]; quantized: readonly string[] }> = {
  TRANSLATION: { components: 3, plain: ['float'], quantized: ['byte', 'byte normalized', 'short', 'short normalized'] },
  ROTATION: { components: 4, plain: ['float', 'byte normalized', 'short normalized'], quantized: [] },
  SCALE: { components: 3, plain: ['float', 'byte normalized', 'short normalized'], quantized: ['byte', 'short'] },
};

function typeName(componentType: number, normalized: boolean): string {
  const base = componentType === ComponentType.FLOAT ? 'float'
    : componentType === ComponentType.BYTE ? 'byte'
    : componentType === ComponentType.SHORT ? 'short'
    : componentType === ComponentType.UNSIGNED_BYTE ? 'unsigned byte'
    : componentType === ComponentType.UNSIGNED_SHORT ? 'unsigned short'
    : componentType === ComponentType.UNSIGNED_INT ? 'unsigned int' : `componentType ${componentType}`;
  return normalized ? `${base} normalized` : base;
}

export interface MeshInstances {
  /** 16 per instance, column-major: the instance's TRS, applied in the node's space. */
  readonly matrices: Float64Array;
  /** Whether the node's skin is dropped (three.js draws instanced skinned meshes rigid). */
  readonly dropsSkin: boolean;
}

/**
 * The instances of node `n` (with `mesh`) when it carries the extension, else undefined.
 * Bad accessors (wrong type, component type, mismatched counts) are GltfErrors naming the
 * attribute's JSON path.
 */
export function readMeshInstances(ctx: ReadContext, n: number, mesh: Mesh, skinned: boolean): MeshInstances | undefined {
  const nodeJson = asObject(optArray(ctx.root, 'nodes', '')[n], `nodes[${n}]`);
  const extensions = nodeJson.extensions;
  if (extensions === undefined) return undefined;
  const epath = `nodes[${n}].extensions`;
  const ext = asObject(extensions, epath)[EXT_MESH_GPU_INSTANCING];
  if (ext === undefined) return undefined;
  const path = `${epath}.${EXT_MESH_GPU_INSTANCING}`;
  const attributes = asObject(asObject(ext, path).attributes, `${path}.attributes`);
  const apath = `${path}.attributes`;
  const names = Object.keys(attributes);
  if (names.length === 0) {
    ctx.warn(apath, 'has no attributes; the node is drawn once, as three.js r187 does');
    return undefined;
  }
  if (mesh.primitives.some((p) => p.mode < PrimitiveMode.TRIANGLES)) {
    ctx.warn(path, 'the mesh has points or lines; the extension is ignored and the node drawn once, as three.js r187 does');
    return undefined;
  }
  const quantization = optArray(ctx.root, 'extensionsUsed', '').includes('KHR_mesh_quantization');
  let count = -1;
  let countFrom = '';
  const values: Partial<Record<keyof typeof ALLOWED, Float32Array>> = {};
  const custom: string[] = [];
  for (const name of names) {
    const at = `${apath}.${name}`;
    const rule = Object.hasOwn(ALLOWED, name) ? ALLOWED[name as keyof typeof ALLOWED] : undefined;
    if (!rule) {
      // Custom attributes (`_ID`, `_COLOR_0`…) still set the count; unknown names without `_` are invalid.
      if (!name.startsWith('_')) throw new GltfError(at, `"${name}" is not TRANSLATION, ROTATION, SCALE or a custom attribute starting with "_"`);
      custom.push(name);
    }
    const data = ctx.accessor(attributes[name], at);
    if (count < 0) {
      count = data.count;
      countFrom = name;
    } else if (data.count !== count) {
      throw new GltfError(at, `has ${data.count} elements but ${countFrom} has ${count}; every instance attribute needs one per instance`);
    }
    if (!rule) continue;
    if (data.components !== rule.components) throw new GltfError(at, `must be a VEC${rule.components} accessor (got ${data.components} components)`);
    const type = typeName(data.componentType, data.normalized);
    const allowed = quantization ? [...rule.plain, ...rule.quantized] : rule.plain;
    if (!allowed.includes(type)) {
      const hint = !quantization && rule.quantized.includes(type) ? ' (allowed only with KHR_mesh_quantization)' : '';
      throw new GltfError(at, `${type} components are not allowed${hint}; use ${allowed.join(', ')}`);
    }
    values[name as keyof typeof ALLOWED] = ctx.floatValues(attributes[name], at);
  }
  if (custom.length > 0) ctx.warn(apath, `custom attribute(s) ${custom.join(', ')} ignored`);
  ctx.budget.charge(count * INSTANCE_MATRIX_BYTES, apath);
  if (skinned) ctx.warn(path, `on a skinned mesh: drawn as ${count} rigid instance(s) of the bind-pose geometry, unskinned, as three.js r187 does`);

  const matrices = new Float64Array(count * 16);
  const t = [0, 0, 0], r = [0, 0, 0, 1], s = [1, 1, 1];
  const { TRANSLATION: tv, ROTATION: rv, SCALE: sv } = values;
  let zeroRotations = 0;
  for (let i = 0; i < count; i++) {
    if (tv) { t[0] = tv[i * 3]; t[1] = tv[i * 3 + 1]; t[2] = tv[i * 3 + 2]; }
    if (rv) {
      const x = rv[i * 4], y = rv[i * 4 + 1], z = rv[i * 4 + 2], w = rv[i * 4 + 3];
      const len = Math.hypot(x, y, z, w);
      // Quantized rotations are only near unit length; a zero one composes to no rotation in three.js.
      if (len === 0) { zeroRotations++; r[0] = 0; r[1] = 0; r[2] = 0; r[3] = 1; } else { r[0] = x / len; r[1] = y / len; r[2] = z / len; r[3] = w / len; }
    }
    if (sv) { s[0] = sv[i * 3]; s[1] = sv[i * 3 + 1]; s[2] = sv[i * 3 + 2]; }
    composeTRS(t, r, s, matrices, 0, 0, 0, i * 16);
  }
  if (zeroRotations > 0) ctx.warn(`${apath}.ROTATION`, `${zeroRotations} instance rotation(s) are zero quaternions; no rotation is used`);
  return { matrices, dropsSkin: skinned };
}
