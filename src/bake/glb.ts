import { BufferTarget } from '../gltf/constants.ts';
import { GltfBuilder, type GltfMaterialJson, type GltfPrimitiveJson, type GltfTextureInfoJson } from '../gltf/builder.ts';
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
    return b.addTexture(json);
  });
  const materialMap = model.materials.map((m) => b.addMaterial(materialJson(m, textureMap)));

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
  return b.toGlb();
}

function textureInfo(info: TextureInfo | undefined, textureMap: number[], scaleKey?: 'scale' | 'strength'): GltfTextureInfoJson | undefined {
  if (!info) return undefined;
  const json: GltfTextureInfoJson = { index: textureMap[info.index] };
  if (info.texCoord !== 0) json.texCoord = info.texCoord;
  if (scaleKey && info.scale !== 1) json[scaleKey] = info.scale;
  return json;
}

function materialJson(m: Material, textureMap: number[]): GltfMaterialJson {
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
  const base = textureInfo(m.baseColorTexture, textureMap);
  if (base) pbr.baseColorTexture = base;
  const mr = textureInfo(m.metallicRoughnessTexture, textureMap);
  if (mr) pbr.metallicRoughnessTexture = mr;
  const normal = textureInfo(m.normalTexture, textureMap, 'scale');
  if (normal) json.normalTexture = normal;
  const occlusion = textureInfo(m.occlusionTexture, textureMap, 'strength');
  if (occlusion) json.occlusionTexture = occlusion;
  const emissive = textureInfo(m.emissiveTexture, textureMap);
  if (emissive) json.emissiveTexture = emissive;
  return json;
}

/** Images from a .gltf `uri` may lack a mimeType; GLB images need one. */
function guessMime(bytes: Uint8Array): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[8] === 0x57) return 'image/webp';
  return 'application/octet-stream';
}
