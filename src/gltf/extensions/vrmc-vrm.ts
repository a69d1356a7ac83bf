/**
 * VRMC_vrm (VRM 1.0): the avatar's meta, its expressions (presets and custom, each with
 * morph-target, material-colour and texture-transform binds) and its look-at settings. The
 * humanoid map is the loader's (Model.humanoid). Broken expressions and binds are skipped
 * with a warning naming their JSON path.
 */
import { isObject, type JsonObject } from '../json.ts';
import type {
  VrmExpression, VrmLookAt, VrmMaterialColorBind, VrmMaterialColorType, VrmMeta, VrmMorphBind, VrmOverride, VrmRangeMap, VrmTextureTransformBind,
} from '../vrm-model.ts';
import type { VrmReader } from './vrm-read.ts';
import { VRMC_VRM } from './names.ts';

const SPEC_VERSIONS = ['1.0', '1.0-beta'];

/** VRM 1.0's preset expression names. */
export const EXPRESSION_PRESETS = [
  'happy', 'angry', 'sad', 'relaxed', 'surprised', 'aa', 'ih', 'ou', 'ee', 'oh',
  'blink', 'blinkLeft', 'blinkRight', 'lookUp', 'lookDown', 'lookLeft', 'lookRight', 'neutral',
] as const;
const PRESET_SET: ReadonlySet<string> = new Set(EXPRESSION_PRESETS);

const OVERRIDES = ['none', 'block', 'blend'] as const;
const COLOR_TYPES: readonly VrmMaterialColorType[] = ['color', 'emissionColor', 'shadeColor', 'matcapColor', 'rimColor', 'outlineColor'];

/** three-vrm's smallest `inputMaxValue` (it divides by it). */
export const RANGE_MAP_MIN_INPUT = 0.01;
/** The look-at point's default offset from the head bone (the specification's example; three-vrm's default). */
export const DEFAULT_LOOK_AT_OFFSET: readonly [number, number, number] = [0, 0.06, 0];

export function readVrmcVrmMeta(reader: VrmReader, ext: JsonObject): VrmMeta {
  const path = `extensions.${VRMC_VRM}`;
  const version = reader.string(ext, 'specVersion', path);
  if (version === undefined || !SPEC_VERSIONS.includes(version)) {
    reader.warn(`${path}.specVersion`, `spec version ${JSON.stringify(version)} is not 1.0; read as 1.0`);
  }
  const meta = reader.object(ext, 'meta', path) ?? {};
  const mpath = `${path}.meta`;
  const authors = reader.array(meta, 'authors', mpath).filter((a): a is string => typeof a === 'string');
  return {
    name: reader.string(meta, 'name', mpath),
    version: reader.string(meta, 'version', mpath),
    authors,
    license: reader.string(meta, 'licenseUrl', mpath),
  };
}

export function readVrmcVrmExpressions(reader: VrmReader, ext: JsonObject): VrmExpression[] {
  const path = `extensions.${VRMC_VRM}.expressions`;
  const expressions = reader.object(ext, 'expressions', `extensions.${VRMC_VRM}`);
  if (!expressions) return [];
  const out: VrmExpression[] = [];
  const preset = reader.object(expressions, 'preset', path);
  for (const [name, e] of Object.entries(preset ?? {})) {
    const epath = `${path}.preset.${name}`;
    if (!PRESET_SET.has(name)) {
      reader.warn(epath, `"${name}" is not a VRM 1.0 preset name; skipped`);
      continue;
    }
    const x = reader.part(() => readExpression(reader, e, epath, name, true));
    if (x) out.push(x);
  }
  const custom = reader.object(expressions, 'custom', path);
  for (const [name, e] of Object.entries(custom ?? {})) {
    const epath = `${path}.custom.${name}`;
    if (PRESET_SET.has(name)) {
      reader.warn(epath, `a custom expression may not use the preset name "${name}"; skipped`);
      continue;
    }
    const x = reader.part(() => readExpression(reader, e, epath, name, false));
    if (x) out.push(x);
  }
  return out;
}

function readExpression(reader: VrmReader, e: unknown, path: string, name: string, preset: boolean): VrmExpression | undefined {
  if (!isObject(e)) {
    reader.warn(path, 'is not an object; skipped');
    return undefined;
  }
  const morphTargetBinds: VrmMorphBind[] = [];
  reader.array(e, 'morphTargetBinds', path).forEach((b, i) => {
    const bind = reader.part(() => readMorphBind(reader, b, `${path}.morphTargetBinds[${i}]`));
    if (bind) morphTargetBinds.push(bind);
  });
  const materialColorBinds: VrmMaterialColorBind[] = [];
  reader.array(e, 'materialColorBinds', path).forEach((b, i) => {
    const bpath = `${path}.materialColorBinds[${i}]`;
    const bind = reader.part(() => {
      if (!isObject(b)) return void reader.warn(bpath, 'is not an object; skipped');
      const material = reader.index(b.material, `${bpath}.material`, reader.input.materialCount, 'materials');
      const type = b.type;
      if (typeof type !== 'string' || !(COLOR_TYPES as readonly string[]).includes(type)) {
        return void reader.warn(`${bpath}.type`, `${JSON.stringify(type)} is not one of ${COLOR_TYPES.join(', ')}; skipped`);
      }
      const targetValue = reader.numbers<[number, number, number, number]>(b, 'targetValue', bpath, [0, 0, 0, 1]);
      return { material, type: type as VrmMaterialColorType, targetValue };
    });
    if (bind) materialColorBinds.push(bind);
  });
  const textureTransformBinds: VrmTextureTransformBind[] = [];
  reader.array(e, 'textureTransformBinds', path).forEach((b, i) => {
    const bpath = `${path}.textureTransformBinds[${i}]`;
    const bind = reader.part(() => {
      if (!isObject(b)) return void reader.warn(bpath, 'is not an object; skipped');
      const material = reader.index(b.material, `${bpath}.material`, reader.input.materialCount, 'materials');
      return { material, scale: reader.numbers<[number, number]>(b, 'scale', bpath, [1, 1]), offset: reader.numbers<[number, number]>(b, 'offset', bpath, [0, 0]) };
    });
    if (bind) textureTransformBinds.push(bind);
  });
  return {
    name, preset,
    isBinary: reader.boolean(e, 'isBinary', path, false),
    overrideBlink: reader.choice<VrmOverride>(e, 'overrideBlink', path, OVERRIDES, 'none'),
    overrideLookAt: reader.choice<VrmOverride>(e, 'overrideLookAt', path, OVERRIDES, 'none'),
    overrideMouth: reader.choice<VrmOverride>(e, 'overrideMouth', path, OVERRIDES, 'none'),
    morphTargetBinds, materialColorBinds, textureTransformBinds,
  };
}

function readMorphBind(reader: VrmReader, b: unknown, path: string): VrmMorphBind | undefined {
  if (!isObject(b)) {
    reader.warn(path, 'is not an object; skipped');
    return undefined;
  }
  const node = reader.node(b.node, `${path}.node`);
  const index = checkMorphTarget(reader, node, b.index, `${path}.index`);
  if (index === undefined) return undefined;
  return { node, index, weight: reader.number(b, 'weight', path, 1, 0, 1) };
}

/** A morph target index checked against node `node`'s mesh (warns and gives undefined when it has none or fewer). */
export function checkMorphTarget(reader: VrmReader, node: number, index: unknown, path: string): number | undefined {
  const mesh = reader.input.nodes[node].mesh;
  if (mesh < 0) {
    reader.warn(path, `node ${node} has no mesh to morph; skipped`);
    return undefined;
  }
  const targets = reader.input.meshes[mesh].primitives[0]?.targets.length ?? 0;
  return reader.index(index, path, targets, `meshes[${mesh}]'s morph targets`);
}

export function readVrmcVrmLookAt(reader: VrmReader, ext: JsonObject): VrmLookAt | undefined {
  const path = `extensions.${VRMC_VRM}.lookAt`;
  const lookAt = reader.object(ext, 'lookAt', `extensions.${VRMC_VRM}`);
  if (!lookAt) return undefined;
  const type = reader.choice(lookAt, 'type', path, ['bone', 'expression'] as const, 'bone');
  const scale = type === 'expression' ? 1 : 10;
  const map = (key: string): VrmRangeMap => {
    const m = reader.object(lookAt, key, path) ?? {};
    const mpath = `${path}.${key}`;
    return {
      inputMaxValue: reader.number(m, 'inputMaxValue', mpath, 90, RANGE_MAP_MIN_INPUT, 180),
      outputScale: reader.number(m, 'outputScale', mpath, scale),
    };
  };
  return {
    type,
    offsetFromHeadBone: reader.numbers(lookAt, 'offsetFromHeadBone', path, [...DEFAULT_LOOK_AT_OFFSET] as [number, number, number]),
    rangeMapHorizontalInner: map('rangeMapHorizontalInner'),
    rangeMapHorizontalOuter: map('rangeMapHorizontalOuter'),
    rangeMapVerticalDown: map('rangeMapVerticalDown'),
    rangeMapVerticalUp: map('rangeMapVerticalUp'),
    faceFront: [0, 0, 1],
  };
}
