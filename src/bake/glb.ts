import { BufferTarget } from '../gltf/constants.ts';
import { GltfBuilder, type GltfMaterialJson, type GltfPrimitiveJson, type GltfTextureInfoJson } from '../gltf/builder.ts';
import { specularGlossinessJson } from '../gltf/extensions/khr-materials-pbr-specular-glossiness.ts';
import { KHR_MATERIALS_VARIANTS, variantMappingsJson } from '../gltf/extensions/khr-materials-variants.ts';
import { MATERIAL_WRITERS } from '../gltf/extensions/material-writers.ts';
import { textureTransformJson } from '../gltf/extensions/khr-texture-transform.ts';
import type { Material, Model, TextureInfo } from '../gltf/model.ts';
import type { BakeResult } from './bake.ts';
import { posedPrimitives } from './posed.ts';

/**
 * A static glTF binary of the posed scene: every mesh node's geometry in world space
 * (skinned primitives as baked, rigid ones moved by their node) under identity nodes,
 * with no skins or animations, and the materials, textures and images carried over.
 */
export function bakeToGlb(model: Model, result: BakeResult): Uint8Array {
  const b = new GltfBuilder('skinned-mesh-webgpu bake');
  const imageMap = model.images.map((img) => b.addImage(img.bytes, img.mimeType ?? guessMime(img.bytes), img.name));
  const samplerMap = model.samplers.map((s) => {
    const json: Record<string, unknown> = { wrapS: s.wrapS, wrapT: s.wrapT };
    if (s.magFilter !== undefined) json.magFilter = s.magFilter;
    if (s.minFilter !== undefined) json.minFilter = s.minFilter;
    return b.addSampler(json);
  });
  const textureMap = model.textures.map((t) => {
    const json: Record<string, unknown> = {};
    if (t.sampler >= 0) json.sampler = samplerMap[t.sampler];
    if (t.source >= 0) json.source = imageMap[t.source];
    if (t.extensionSources) {
      // EXT_texture_webp / EXT_texture_avif: required when there is no plain source to fall back to.
      json.extensions = Object.fromEntries(t.extensionSources.map((e) => [e.extension, { source: imageMap[e.source] }]));
      for (const e of t.extensionSources) useExtension(b, e.extension, t.source < 0);
    }
    return b.addTexture(json);
  });
  const materialMap = model.materials.map((m) => b.addMaterial(materialJson(m, textureMap, b)));

  const roots: number[] = [];
  const byNode = new Map<number, GltfPrimitiveJson[]>();
  for (const p of posedPrimitives(model, result)) {
    const src = p.source;
    const attributes: Record<string, number> = {
      POSITION: b.addAccessor(Float32Array.from(p.positions), 'VEC3', { minMax: true, target: BufferTarget.ARRAY_BUFFER }),
    };
    if (p.normals) attributes.NORMAL = b.addAccessor(Float32Array.from(p.normals), 'VEC3', { target: BufferTarget.ARRAY_BUFFER });
    if (p.tangents) attributes.TANGENT = b.addAccessor(Float32Array.from(p.tangents), 'VEC4', { target: BufferTarget.ARRAY_BUFFER });
    if (src.texcoords0) attributes.TEXCOORD_0 = b.addAccessor(src.texcoords0, 'VEC2', { target: BufferTarget.ARRAY_BUFFER });
    if (src.texcoords1) attributes.TEXCOORD_1 = b.addAccessor(src.texcoords1, 'VEC2', { target: BufferTarget.ARRAY_BUFFER });
    if (src.colors0) attributes.COLOR_0 = b.addAccessor(src.colors0, 'VEC4', { target: BufferTarget.ARRAY_BUFFER });
    const prim: GltfPrimitiveJson = { attributes, mode: src.mode };
    if (src.indices) prim.indices = b.addAccessor(src.indices, 'SCALAR', { target: BufferTarget.ELEMENT_ARRAY_BUFFER });
    if (src.material >= 0) prim.material = materialMap[src.material];
    const mappings = src.variantMaterials && variantMappingsJson(src.variantMaterials, src.material, materialMap);
    if (mappings && mappings.length > 0) prim.extensions = { [KHR_MATERIALS_VARIANTS]: { mappings } };
    let list = byNode.get(p.node);
    if (!list) byNode.set(p.node, (list = []));
    list.push(prim);
  }
  for (const [node, primitives] of byNode) {
    const name = model.nodes[node].name;
    const mesh = b.addMesh({ name: model.meshes[model.nodes[node].mesh].name ?? name, primitives });
    roots.push(b.addNode(name === undefined ? { mesh } : { name, mesh }));
  }
  b.json.scene = b.addScene({ nodes: roots });
  if (model.variants) {
    b.json.extensions = { [KHR_MATERIALS_VARIANTS]: { variants: model.variants.map((name) => ({ name })) } };
    useExtension(b, KHR_MATERIALS_VARIANTS);
  }
  return b.toGlb();
}

/** Lists `name` in extensionsUsed (and extensionsRequired), once. */
function useExtension(b: GltfBuilder, name: string, required = false): void {
  if (!b.json.extensionsUsed.includes(name)) b.json.extensionsUsed.push(name);
  if (required && !b.json.extensionsRequired.includes(name)) b.json.extensionsRequired.push(name);
}

function textureInfo(info: TextureInfo | undefined, textureMap: number[], b: GltfBuilder, scaleKey?: 'scale' | 'strength'): GltfTextureInfoJson | undefined {
  if (!info) return undefined;
  const json: GltfTextureInfoJson = { index: textureMap[info.index] };
  if (info.texCoord !== 0) json.texCoord = info.texCoord;
  if (scaleKey && info.scale !== 1) json[scaleKey] = info.scale;
  if (info.transform) {
    json.extensions = { KHR_texture_transform: textureTransformJson(info.transform) };
    useExtension(b, 'KHR_texture_transform');
  }
  return json;
}

/** The material as the loader read it: core metal-rough plus the extensions it draws. */
function materialJson(m: Material, textureMap: number[], b: GltfBuilder): GltfMaterialJson {
  const json: GltfMaterialJson = {
    pbrMetallicRoughness: {
      baseColorFactor: [...m.baseColorFactor],
      metallicFactor: m.metallicFactor,
      roughnessFactor: m.roughnessFactor,
    },
    emissiveFactor: [...m.emissiveFactor],
    alphaMode: m.alphaMode,
    doubleSided: m.doubleSided,
  };
  if (m.name !== undefined) json.name = m.name;
  if (m.alphaMode === 'MASK') json.alphaCutoff = m.alphaCutoff;
  const pbr = json.pbrMetallicRoughness!;
  const base = textureInfo(m.baseColorTexture, textureMap, b);
  if (base) pbr.baseColorTexture = base;
  const extensions: Record<string, unknown> = {};
  if (m.shading === 'pbr-glossiness') {
    // The metallic-roughness slot holds a specular-glossiness texture: written back as the
    // extension, with the factors alone as the metal-rough fallback.
    extensions.KHR_materials_pbrSpecularGlossiness = specularGlossinessJson(m, (slot) => textureInfo(slot, textureMap, b));
  } else {
    const mr = textureInfo(m.metallicRoughnessTexture, textureMap, b);
    if (mr) pbr.metallicRoughnessTexture = mr;
  }
  if (m.shading === 'unlit') extensions.KHR_materials_unlit = {};
  if (m.emissiveStrength !== undefined && m.emissiveStrength !== 1) extensions.KHR_materials_emissive_strength = { emissiveStrength: m.emissiveStrength };
  for (const e of MATERIAL_WRITERS) {
    const ext = e.writeMaterial!(m, (info, scaleKey) => textureInfo(info, textureMap, b, scaleKey));
    if (ext) extensions[e.name] = ext;
  }
  const normal = textureInfo(m.normalTexture, textureMap, b, 'scale');
  if (normal) json.normalTexture = normal;
  const occlusion = textureInfo(m.occlusionTexture, textureMap, b, 'strength');
  if (occlusion) json.occlusionTexture = occlusion;
  const emissive = textureInfo(m.emissiveTexture, textureMap, b);
  if (emissive) json.emissiveTexture = emissive;
  if (Object.keys(extensions).length > 0) {
    json.extensions = extensions;
    for (const name of Object.keys(extensions)) useExtension(b, name);
  }
  return json;
}

/** Images from a .gltf `uri` may lack a mimeType; GLB images need one. */
function guessMime(bytes: Uint8Array): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[8] === 0x57) return 'image/webp';
  if (bytes[0] === 0xab && bytes[1] === 0x4b && bytes[2] === 0x54 && bytes[3] === 0x58 && bytes[5] === 0x32) return 'image/ktx2';
  return 'application/octet-stream';
}
