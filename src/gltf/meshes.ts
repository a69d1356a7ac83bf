import type { AccessorData } from './accessors.ts';
import { CENTER_OF_ROTATION_ATTRIBUTE, readCenterOfRotation } from './center-of-rotation-attribute.ts';
import { ComponentType, PrimitiveMode } from './constants.ts';
import { GltfError } from './errors.ts';
import { readVariantMappings, variantCount } from './extensions/khr-materials-variants.ts';
import { quantizedAttributes } from './extensions/khr-mesh-quantization.ts';
import { asObject, float32Array, optArray, optIndex, optInteger, optNumbers, optString, type JsonObject } from './json.ts';
import type { Mesh, MorphTarget, Primitive } from './model.ts';
import type { ReadContext } from './read-context.ts';
import { SkinAttributeReader } from './skin-attributes.ts';

/** The `meshes` section: primitives with their attributes, indices, skinning data and morph targets. */
export function readMeshes(ctx: ReadContext): Mesh[] {
  const reader = new PrimitiveReader(ctx);
  return optArray(ctx.root, 'meshes', '').map((m, mi) => {
    const path = `meshes[${mi}]`;
    const mesh = asObject(m, path);
    const prims = optArray(mesh, 'primitives', path);
    // glTF-Validator: a mesh needs a primitive (schema minItems 1); three.js r187 makes an empty
    // Group of such a mesh, so it draws nothing and anything skinned or animated on it is inert.
    if (prims.length === 0) ctx.warn(`${path}.primitives`, 'is empty; the mesh draws nothing');
    const primitives = prims.map((p, pi) => reader.read(asObject(p, `${path}.primitives[${pi}]`), `${path}.primitives[${pi}]`));
    // glTF-Validator MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT is an error; three.js r187 gives each
    // primitive its own influences, indexed from 0, set from the mesh weights and from one weights
    // track: target k of every primitive follows weight k, and a primitive with fewer targets
    // ignores the weights beyond them. The mesh has as many weights as its largest primitive.
    let targetCount = 0;
    for (const p of primitives) targetCount = Math.max(targetCount, p.targets.length);
    const unequal = primitives.findIndex((p) => p.targets.length !== targetCount);
    if (unequal >= 0) {
      const counts = primitives.map((p) => p.targets.length).join(', ');
      ctx.warn(`${path}.primitives[${unequal}].targets`, `primitives have different morph target counts (${counts}); target k of each follows weight k of ${targetCount}, and a primitive with fewer ignores the rest`);
    }
    let weights: Float32Array = new Float32Array(targetCount);
    if (mesh.weights !== undefined) {
      const list = optNumbers(mesh, 'weights', path, Array.isArray(mesh.weights) ? mesh.weights.length : -1)!;
      // glTF-Validator MESH_INVALID_WEIGHTS_COUNT is an error; three.js r187 copies the weights it has over zeros.
      if (list.length !== targetCount) {
        ctx.warn(`${path}.weights`, `has ${list.length} weights but the primitives have ${targetCount} morph targets; ${list.length > targetCount ? 'the extra weights are ignored' : 'the missing weights are 0'}`);
      }
      weights.set(float32Array(list.slice(0, targetCount), `${path}.weights`));
    }
    const triangles = primitives.filter((p) => p.mode >= PrimitiveMode.TRIANGLES);
    const withoutNormals = triangles.filter((p) => !p.normals).length;
    if (withoutNormals > 0) {
      ctx.warn(`${path}.primitives`, `${withoutNormals} of ${primitives.length} primitive(s) have no NORMAL; flat normals are derived per face when drawn`);
    }
    return { name: optString(mesh, 'name', path), primitives, weights };
  });
}

/** `{ quantized }` when the primitive has integer-stored attributes, else nothing (the property stays absent). */
function quantizedOf(ctx: ReadContext, attrs: JsonObject, apath: string): Pick<Primitive, 'quantized'> {
  const quantized = quantizedAttributes(ctx, attrs, apath);
  return quantized ? { quantized } : {};
}

/** Reads primitives; what is derived per accessor is shared by every primitive using it. */
class PrimitiveReader {
  private readonly indexCache = new Map<string, { indices: Uint16Array | Uint32Array; max: number }>();
  private readonly skinAttributes: SkinAttributeReader;
  /** KHR_materials_variants: how many variants the file names. */
  private readonly variantCount: number;

  constructor(private readonly ctx: ReadContext) {
    this.skinAttributes = new SkinAttributeReader(ctx);
    this.variantCount = variantCount(ctx);
  }

  read(prim: JsonObject, path: string): Primitive {
    const substitute = this.ctx.substitutes.get(prim);
    return this.ctx.withSubstitute(substitute, () => this.readWith(prim, path, substitute?.indices, substitute?.mode));
  }

  /** Reads a primitive; a decoded one brings its own indices and mode. */
  private readWith(prim: JsonObject, path: string, decodedIndices: AccessorData | undefined, decodedMode: number | undefined): Primitive {
    const attrs = asObject(prim.attributes, `${path}.attributes`);
    const apath = `${path}.attributes`;
    if (attrs.POSITION === undefined) throw new GltfError(`${apath}.POSITION`, 'is required');
    const positions = this.ctx.attributeFloats(attrs, 'POSITION', apath, [3]);
    const vertexCount = positions.length / 3;
    // glTF-Validator MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT (an error), also for attributes we do not read.
    for (const name of Object.keys(attrs)) {
      // Our own attribute is only a cache: center-of-rotation-attribute.ts warns and recomputes instead.
      if (name === CENTER_OF_ROTATION_ATTRIBUTE) continue;
      const n = this.ctx.attributeCount(attrs, name, apath);
      if (n !== vertexCount) throw new GltfError(`${apath}.${name}`, `has ${n} elements but POSITION has ${vertexCount}`);
    }
    const attribute = (name: string, components: readonly number[]): Float32Array | undefined => {
      if (attrs[name] === undefined) return undefined;
      return this.ctx.attributeFloats(attrs, name, apath, components);
    };
    const normals = attribute('NORMAL', [3]);
    const tangents = attribute('TANGENT', [4]);
    const texcoords0 = attribute('TEXCOORD_0', [2]);
    const texcoords1 = attribute('TEXCOORD_1', [2]);
    let colors0 = attribute('COLOR_0', [3, 4]);
    if (colors0 && colors0.length === vertexCount * 3) {
      this.ctx.budget.charge(vertexCount * 16, `${apath}.COLOR_0`);
      const rgba = new Float32Array(vertexCount * 4);
      for (let v = 0; v < vertexCount; v++) {
        rgba[v * 4] = colors0[v * 3]; rgba[v * 4 + 1] = colors0[v * 3 + 1]; rgba[v * 4 + 2] = colors0[v * 3 + 2]; rgba[v * 4 + 3] = 1;
      }
      colors0 = rgba;
    }

    const mode = decodedMode ?? optInteger(prim, 'mode', path, PrimitiveMode.TRIANGLES, 6);
    let indices: Uint16Array | Uint32Array | undefined;
    if (prim.indices !== undefined || decodedIndices) {
      const ipath = `${path}.indices`;
      const read = this.indexAccessor(prim.indices, ipath, decodedIndices);
      indices = read.indices;
      if (read.max >= vertexCount) {
        const at = indices.findIndex((i) => i >= vertexCount);
        throw new GltfError(ipath, `index ${indices[at]} at position ${at} is out of range (${vertexCount} vertices)`);
      }
      if (mode === PrimitiveMode.TRIANGLES && indices.length % 3 !== 0) {
        this.ctx.warn(ipath, `${indices.length} indices is not a whole number of triangles; the last ${indices.length % 3} are ignored`);
      }
    }

    const skin = this.skinAttributes.read(attrs, apath, vertexCount);
    const targets = optArray(prim, 'targets', path).map((t, ti) => {
      const tpath = `${path}.targets[${ti}]`;
      const target = asObject(t, tpath);
      const read = (name: string, components: number): Float32Array | undefined => {
        if (target[name] === undefined) return undefined;
        const data = this.ctx.floatAccessor(target[name], `${tpath}.${name}`, [components]);
        if (data.length !== vertexCount * components) throw new GltfError(`${tpath}.${name}`, `count does not match POSITION (${vertexCount})`);
        return data;
      };
      const morph: MorphTarget = { positions: read('POSITION', 3), normals: read('NORMAL', 3), tangents: read('TANGENT', 3) };
      return morph;
    });
    const materialCount = optArray(this.ctx.root, 'materials', '').length;
    const material = optIndex(prim, 'material', path, materialCount, 'materials');
    return {
      mode, vertexCount, positions, normals, tangents, texcoords0, texcoords1, colors0, indices,
      material,
      ...skin,
      ...readCenterOfRotation(this.ctx, attrs, apath, vertexCount, skin.influences > 0),
      targets,
      ...quantizedOf(this.ctx, attrs, apath),
      ...readVariantMappings(this.ctx, prim, path, this.variantCount, materialCount, material),
    };
  }

  /** An index accessor, widened to at least 16 bits, and its largest index (once per accessor). */
  private indexAccessor(index: unknown, ipath: string, decoded?: AccessorData): { indices: Uint16Array | Uint32Array; max: number } {
    // The decoded indices replace the accessor's data; it is only marked used.
    if (decoded && index !== undefined) this.ctx.accessorCount(index, ipath);
    const data = decoded ?? this.ctx.accessor(index, ipath);
    if (data.components !== 1) throw new GltfError(ipath, 'must be a SCALAR accessor');
    const ct = data.componentType;
    if (ct !== ComponentType.UNSIGNED_BYTE && ct !== ComponentType.UNSIGNED_SHORT && ct !== ComponentType.UNSIGNED_INT) {
      throw new GltfError(ipath, `componentType ${ct} is not an unsigned integer type`);
    }
    const key = decoded ? `${this.ctx.cacheTag}indices` : String(index);
    let read = this.indexCache.get(key);
    if (!read) {
      if (ct === ComponentType.UNSIGNED_BYTE) this.ctx.budget.charge(data.count * 2, ipath);
      const indices = ct === ComponentType.UNSIGNED_BYTE ? Uint16Array.from(data.array) : (data.array as Uint16Array | Uint32Array);
      let max = -1;
      for (let i = 0; i < indices.length; i++) if (indices[i] > max) max = indices[i];
      read = { indices, max };
      this.indexCache.set(key, read);
    }
    return read;
  }
}
