/**
 * VRM 0.x (`extensions.VRM`), read into VRM 1.0's runtime model with three-vrm's
 * conversions: blend-shape groups become expressions (presets renamed to 1.0's, bind weights
 * 0–100 divided by 100, material values by material name turned into colour and `_MainTex_ST`
 * texture-transform binds); `firstPerson`'s look-at settings become the look-at (offset z
 * negated, the model's front −Z); `meta`; and each material's `materialProperties` is checked
 * and kept for the MToon material. `secondaryAnimation` is read by vrm0-secondary-animation.ts.
 */
import { isObject, type JsonObject } from '../json.ts';
import type {
  Vrm0MaterialProperties, VrmExpression, VrmLookAt, VrmMaterialColorBind, VrmMaterialColorType, VrmMeta, VrmMorphBind, VrmRangeMap,
  VrmTextureTransformBind,
} from '../vrm-model.ts';
import { checkMorphTarget, DEFAULT_LOOK_AT_OFFSET, RANGE_MAP_MIN_INPUT } from './vrmc-vrm.ts';
import { fitsFloat32 } from './lenient-reader.ts';
import type { VrmReader } from './vrm-read.ts';

const PATH = 'extensions.VRM';

/** 0.x preset name → 1.0 name (three-vrm's table). */
const PRESET_NAMES: Readonly<Record<string, string>> = {
  a: 'aa', e: 'ee', i: 'ih', o: 'oh', u: 'ou', blink: 'blink', joy: 'happy', angry: 'angry', sorrow: 'sad', fun: 'relaxed',
  lookup: 'lookUp', lookdown: 'lookDown', lookleft: 'lookLeft', lookright: 'lookRight', blink_l: 'blinkLeft', blink_r: 'blinkRight',
  neutral: 'neutral',
};

/** 0.x material colour properties → 1.0 colour bind types. */
const COLOR_PROPERTIES: Readonly<Record<string, VrmMaterialColorType>> = {
  _Color: 'color', _EmissionColor: 'emissionColor', _ShadeColor: 'shadeColor', _RimColor: 'rimColor', _OutlineColor: 'outlineColor',
};

export function readVrm0Meta(reader: VrmReader, ext: JsonObject): VrmMeta {
  const meta = reader.object(ext, 'meta', PATH) ?? {};
  const path = `${PATH}.meta`;
  const author = reader.string(meta, 'author', path);
  return {
    name: reader.string(meta, 'title', path),
    version: reader.string(meta, 'version', path),
    authors: author === undefined ? [] : [author],
    license: reader.string(meta, 'otherLicenseUrl', path) || reader.string(meta, 'licenseName', path),
  };
}

export function readVrm0Expressions(reader: VrmReader, ext: JsonObject, materialNames: readonly (string | undefined)[]): VrmExpression[] {
  const master = reader.object(ext, 'blendShapeMaster', PATH);
  if (!master) return [];
  const path = `${PATH}.blendShapeMaster.blendShapeGroups`;
  const names = new Set<string>();
  const out: VrmExpression[] = [];
  reader.array(master, 'blendShapeGroups', `${PATH}.blendShapeMaster`).forEach((g, i) => {
    const gpath = `${path}[${i}]`;
    if (!isObject(g)) return void reader.warn(gpath, 'is not an object; skipped');
    const presetName = reader.string(g, 'presetName', gpath);
    const preset = presetName !== undefined ? PRESET_NAMES[presetName] : undefined;
    const name = preset ?? reader.string(g, 'name', gpath);
    if (name === undefined) return void reader.warn(gpath, 'has no preset and no name; skipped');
    if (names.has(name)) return void reader.warn(gpath, `"${name}" is already defined by an earlier group; skipped`);
    names.add(name);
    const morphTargetBinds: VrmMorphBind[] = [];
    reader.array(g, 'binds', gpath).forEach((b, k) => {
      reader.part(() => morphTargetBinds.push(...readMorphBinds(reader, b, `${gpath}.binds[${k}]`)));
    });
    const materialColorBinds: VrmMaterialColorBind[] = [];
    const textureTransformBinds: VrmTextureTransformBind[] = [];
    reader.array(g, 'materialValues', gpath).forEach((v, k) => {
      const vpath = `${gpath}.materialValues[${k}]`;
      if (!isObject(v)) return void reader.warn(vpath, 'is not an object; skipped');
      const materialName = reader.string(v, 'materialName', vpath);
      const property = reader.string(v, 'propertyName', vpath);
      if (materialName === undefined || property === undefined) return void reader.warn(vpath, 'needs a materialName and a propertyName; skipped');
      const materials = materialNames.flatMap((n, m) => (n === materialName ? [m] : []));
      if (materials.length === 0) return void reader.warn(`${vpath}.materialName`, `no material is named "${materialName}"; skipped`);
      const target = reader.numbers<[number, number, number, number]>(v, 'targetValue', vpath, [0, 0, 0, 0]);
      if (property === '_MainTex_ST') {
        // Unity's (scale, offset) with V flipped: offset.y = 1 − offset.y − scale.y.
        for (const material of materials) {
          textureTransformBinds.push({ material, scale: [target[0], target[1]], offset: [target[2], 1 - target[3] - target[1]] });
        }
        return;
      }
      const type = COLOR_PROPERTIES[property];
      if (type === undefined) return void reader.warn(`${vpath}.propertyName`, `${property} is not a supported material value; skipped`);
      for (const material of materials) materialColorBinds.push({ material, type, targetValue: target });
    });
    out.push({
      name, preset: preset !== undefined, isBinary: reader.boolean(g, 'isBinary', gpath, false),
      overrideBlink: 'none', overrideLookAt: 'none', overrideMouth: 'none',
      morphTargetBinds, materialColorBinds, textureTransformBinds,
    });
  });
  return out;
}

/** A 0.x bind names a mesh: it binds on every node that draws that mesh (three-vrm's rule). */
function readMorphBinds(reader: VrmReader, b: unknown, path: string): VrmMorphBind[] {
  if (!isObject(b)) {
    reader.warn(path, 'is not an object; skipped');
    return [];
  }
  const { nodes, meshes } = reader.input;
  const mesh = reader.index(b.mesh, `${path}.mesh`, meshes.length, 'meshes');
  const weight = reader.number(b, 'weight', path, 100, 0, 100) / 100;
  const users = nodes.flatMap((n, i) => (n.mesh === mesh ? [i] : []));
  if (users.length === 0) {
    reader.warn(`${path}.mesh`, `no node draws meshes[${mesh}]; skipped`);
    return [];
  }
  const out: VrmMorphBind[] = [];
  for (const node of users) {
    const index = checkMorphTarget(reader, node, b.index, `${path}.index`);
    if (index !== undefined) out.push({ node, index, weight });
  }
  return out;
}

export function readVrm0LookAt(reader: VrmReader, ext: JsonObject): VrmLookAt | undefined {
  const firstPerson = reader.object(ext, 'firstPerson', PATH);
  if (!firstPerson) return undefined;
  const path = `${PATH}.firstPerson`;
  const typeName = reader.choice(firstPerson, 'lookAtTypeName', path, ['Bone', 'BlendShape'] as const, 'Bone');
  const type = typeName === 'BlendShape' ? 'expression' : 'bone';
  const scale = type === 'expression' ? 1 : 10;
  const map = (key: string): VrmRangeMap => {
    const m = reader.object(firstPerson, key, path) ?? {};
    const mpath = `${path}.${key}`;
    const curve = m.curve;
    if (curve !== undefined && JSON.stringify(curve) !== '[0,0,0,1,1,1,1,0]') {
      reader.warn(`${mpath}.curve`, 'only the linear curve is supported (as in three-vrm); it is read as linear');
    }
    return {
      inputMaxValue: reader.number(m, 'xRange', mpath, 90, RANGE_MAP_MIN_INPUT, 180),
      outputScale: reader.number(m, 'yRange', mpath, scale),
    };
  };
  const offset = firstPerson.firstPersonBoneOffset === undefined
    ? [...DEFAULT_LOOK_AT_OFFSET]
    : reader.xyz(firstPerson, 'firstPersonBoneOffset', path, [0, 0.06, 0]);
  return {
    type,
    // 0.x stored z mirrored.
    offsetFromHeadBone: [offset[0], offset[1], offset[2] === 0 ? 0 : -offset[2]],
    rangeMapHorizontalInner: map('lookAtHorizontalInner'),
    rangeMapHorizontalOuter: map('lookAtHorizontalOuter'),
    rangeMapVerticalDown: map('lookAtVerticalDown'),
    rangeMapVerticalUp: map('lookAtVerticalUp'),
    faceFront: [0, 0, -1],
  };
}

/** Per glTF material index, its checked `materialProperties` entry (0.x pairs them by index). */
export function readVrm0MaterialProperties(reader: VrmReader, ext: JsonObject): (Vrm0MaterialProperties | undefined)[] {
  const list = reader.array(ext, 'materialProperties', PATH);
  const out: (Vrm0MaterialProperties | undefined)[] = new Array(reader.input.materialCount).fill(undefined);
  list.forEach((p, i) => {
    const path = `${PATH}.materialProperties[${i}]`;
    if (i >= reader.input.materialCount) return void reader.warn(path, `there is no materials[${i}] to apply it to; skipped`);
    if (!isObject(p)) return void reader.warn(path, 'is not an object; skipped');
    const floats: Record<string, number> = {};
    for (const [k, v] of Object.entries(reader.object(p, 'floatProperties', path) ?? {})) {
      if (fitsFloat32(v)) floats[k] = v;
      else reader.warn(`${path}.floatProperties.${k}`, `expected a finite number, got ${JSON.stringify(v)}; ignored`);
    }
    const vectors: Record<string, number[]> = {};
    for (const [k, v] of Object.entries(reader.object(p, 'vectorProperties', path) ?? {})) {
      if (Array.isArray(v) && v.length <= 4 && v.every(fitsFloat32)) vectors[k] = v.slice();
      else reader.warn(`${path}.vectorProperties.${k}`, 'expected up to 4 finite numbers; ignored');
    }
    const textures: Record<string, number> = {};
    for (const [k, v] of Object.entries(reader.object(p, 'textureProperties', path) ?? {})) {
      const index = reader.part(() => reader.index(v, `${path}.textureProperties.${k}`, reader.input.textureCount, 'textures'));
      if (index !== undefined) textures[k] = index;
    }
    const keywords: Record<string, boolean> = {};
    for (const [k, v] of Object.entries(reader.object(p, 'keywordMap', path) ?? {})) {
      if (typeof v === 'boolean') keywords[k] = v;
      else reader.warn(`${path}.keywordMap.${k}`, `expected a boolean, got ${JSON.stringify(v)}; ignored`);
    }
    const tags: Record<string, string> = {};
    for (const [k, v] of Object.entries(reader.object(p, 'tagMap', path) ?? {})) {
      if (typeof v === 'string') tags[k] = v;
      else reader.warn(`${path}.tagMap.${k}`, `expected a string, got ${JSON.stringify(v)}; ignored`);
    }
    const renderQueue = p.renderQueue === undefined ? undefined : reader.number(p, 'renderQueue', path, 2000);
    out[i] = {
      name: reader.string(p, 'name', path), shader: reader.string(p, 'shader', path), renderQueue,
      floatProperties: floats, vectorProperties: vectors, textureProperties: textures, keywordMap: keywords, tagMap: tags,
    };
  });
  return out;
}
