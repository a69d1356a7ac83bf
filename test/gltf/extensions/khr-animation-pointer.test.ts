import { describe, expect, it } from 'vitest';
import { Crowd } from '../../../src/anim/crowd.ts';
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { createPose, setRestPose } from '../../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../../src/anim/sample.ts';
import type { AnimationTrack, GltfBuilder } from '../../../src/gltf/builder.ts';
import { TargetPath } from '../../../src/gltf/constants.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import {
  MATERIAL_ANIM_FLOATS, MaterialAnimOffset, MTOON_TEXTURE_SLOT_COUNT, TextureSlot, UV_TRANSFORM_FLOATS, UvTransformOffset,
} from '../../../src/gltf/extensions/khr-animation-pointer.ts';
import { EXTENSION_PROPERTIES, resolvePointer } from '../../../src/gltf/extensions/khr-animation-pointer-reader.ts';
import { CHANNEL_BYTES } from '../../../src/gltf/animations.ts';
import { LoadBudget } from '../../../src/gltf/budget.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { MaterialAnimation } from '../../../src/anim/material-tracks.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { addPointerAnimation, asPointerTrack, buildPointerScene, SceneNode, type PointerTrack } from '../../support/animation-pointer.ts';
import { trackAllocations } from '../../support/fuzz.ts';
import { meshWeightFanOutFile } from '../../support/hostile-files.ts';

const s = Math.SQRT1_2;
const TIMES = Float32Array.of(0, 0.5, 1.25, 2);
/** Every interpolation on node T/R/S and morph weights. */
const NODE_TRACKS: AnimationTrack[] = [
  { node: SceneNode.ARM, path: 'rotation', input: TIMES, output: Float32Array.of(0, 0, 0, 1, 0, 0, s, s, 0, 0, 1, 0, s, 0, 0, s) },
  { node: SceneNode.ARM, path: 'translation', input: TIMES, output: Float32Array.of(0, 1, 0, 0, 2, 0, 1, 2, 0, 1, 1, 3), interpolation: 'STEP' },
  {
    node: SceneNode.HAND, path: 'scale', input: Float32Array.of(0, 1), interpolation: 'CUBICSPLINE',
    output: Float32Array.of(0, 0, 0, 1, 1, 1, 2, 0, 0, 0, 1, 0, 2, 3, 2, 0, 0, 0),
  },
  { node: SceneNode.HAND, path: 'rotation', input: Float32Array.of(0, 1), output: Float32Array.of(0, 0, 0, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, 0, 0.5, 0, 0, 0, s, 0, s, 0, 0, 0, 0), interpolation: 'CUBICSPLINE' },
  { node: SceneNode.MORPHED, path: 'weights', input: TIMES, output: Float32Array.of(0, 0, 1, 0, 0.5, 0.5, 0, 1) },
];

const load = (animate: (b: GltfBuilder) => void): Promise<Model> => loadGltf(buildPointerScene(animate));
const pointerModel = (tracks: readonly PointerTrack[]) => load((b) => addPointerAnimation(b, 'pointer', tracks));

async function loadError(animate: (b: GltfBuilder) => void): Promise<GltfError> {
  const error = await load(animate).then(() => undefined, (e: unknown) => e);
  expect(error, 'expected the load to fail').toBeInstanceOf(GltfError);
  return error as GltfError;
}

describe('KHR_animation_pointer: node properties map onto core channels', () => {
  it('a clip of /nodes/N/… pointers samples bit-identically to the same clip as core channels', async () => {
    const core = await load((b) => b.addAnimationTracks('core', NODE_TRACKS));
    const pointer = await pointerModel(NODE_TRACKS.map(asPointerTrack));
    const [a, b] = [core.animations[0], pointer.animations[0]];
    expect(b.channels.map((c) => [c.node, c.slot, c.path, c.timeline])).toEqual(a.channels.map((c) => [c.node, c.slot, c.path, c.timeline]));
    expect(b.duration).toBe(a.duration);
    expect(b.materialTracks).toBeUndefined();
    expect(pointer.warnings).toEqual(core.warnings);
    const [ca, cb] = [createClipCursor(a), createClipCursor(b)];
    const [pa, pb] = [createPose(core), createPose(pointer)];
    for (let t = -0.25; t <= 2.5; t += 0.0625) {
      setRestPose(core, pa);
      setRestPose(pointer, pb);
      sampleClip(ca, t, pa);
      sampleClip(cb, t, pb);
      expect(pb.translation, `t=${t}`).toEqual(pa.translation);
      expect(pb.rotation, `t=${t}`).toEqual(pa.rotation);
      expect(pb.scale, `t=${t}`).toEqual(pa.scale);
      expect(pb.weights, `t=${t}`).toEqual(pa.weights);
    }
    // Something moved: the comparison is not between two rest poses.
    setRestPose(pointer, pb);
    sampleClip(cb, 1, pb);
    expect(pb.weights[0]).toBeGreaterThan(0);
  });

  it('crowds (the batch kernel) and crossfades play the pointer clip as they play the core one', async () => {
    const tracks = NODE_TRACKS.slice(0, 4);
    const core = await load((b) => { b.addAnimationTracks('core', tracks); b.addAnimationTracks('core', [tracks[0]]); });
    const pointer = await load((b) => { addPointerAnimation(b, 'p', tracks.map(asPointerTrack)); addPointerAnimation(b, 'q', [asPointerTrack(tracks[0])]); });
    const [a, b] = [new Crowd(core, 3), new Crowd(pointer, 3)];
    for (const c of [a, b]) {
      c.clip.set([0, 1, 0]);
      c.speed.set([1, 0.5, -1]);
    }
    const [pa, pb] = [new AnimationPlayer(core), new AnimationPlayer(pointer)];
    for (const p of [pa, pb]) p.play();
    for (let f = 0; f < 40; f++) {
      if (f === 10) for (const p of [pa, pb]) p.crossfadeTo(1, 0.4);
      for (const c of [a, b]) c.update(0.07);
      for (const p of [pa, pb]) p.update(0.07);
      for (let k = 0; k < 3; k++) expect(b.instances[k].nodeMatrices, `frame ${f}, instance ${k}`).toEqual(a.instances[k].nodeMatrices);
      expect(pb.instance.nodeMatrices, `player frame ${f}`).toEqual(pa.instance.nodeMatrices);
    }
  });

  it('/meshes/M/weights animates every node drawing the mesh without weights of its own', async () => {
    const model = await pointerModel([{ pointer: '/meshes/0/weights', input: TIMES, output: NODE_TRACKS[4].output, type: 'SCALAR' }]);
    expect(model.animations[0].channels.map((c) => [c.node, c.path])).toEqual([[SceneNode.MORPHED, TargetPath.WEIGHTS]]);
    const own = await load((b) => {
      b.json.nodes![SceneNode.MORPHED].weights = [0.5, 0.5];
      addPointerAnimation(b, 'pointer', [{ pointer: '/meshes/0/weights', input: TIMES, output: NODE_TRACKS[4].output, type: 'SCALAR' }]);
    });
    expect(own.animations[0].channels).toEqual([]);
  });

  it('a node\'s own weights channel wins over its mesh\'s; a mesh\'s weights animated twice in one clip are refused', async () => {
    const weights = (pointer: string): PointerTrack => ({ pointer, input: TIMES, output: NODE_TRACKS[4].output, type: 'SCALAR' });
    const both = await pointerModel([weights(`/nodes/${SceneNode.MORPHED}/weights`), weights('/meshes/0/weights')]);
    expect(both.animations[0].channels.map((c) => [c.node, c.path])).toEqual([[SceneNode.MORPHED, TargetPath.WEIGHTS]]);
    const twice = await loadError((b) => addPointerAnimation(b, 'p', [weights('/meshes/0/weights'), weights('/meshes/0/weights')]));
    expect(twice.path).toBe('animations[0].channels[1].target.extensions.KHR_animation_pointer.pointer');
    expect(twice.problem).toMatch(/meshes\[0\]\.weights is already animated/);
  });

  it('mesh weight pointers multiplied by thousands of nodes stop at the load budget', async () => {
    // 4,001 nodes draw the morphed mesh and 4,001 animations animate its weights: 16 million channels if expanded.
    const copies = 4000;
    const bytes = meshWeightFanOutFile(copies);
    const report = await trackAllocations(() => loadGltf(bytes));
    const e = report.error as GltfError;
    expect(e).toBeInstanceOf(GltfError);
    expect(e.problem).toMatch(/loading needs more than/);
    const at = /^animations\[(\d+)\]\.channels\[0\]$/.exec(e.path);
    expect(at, e.path).not.toBeNull();
    // Counted, not timed (the time is in `npm run bench -- --hostile-loads`): refused at the
    // animation whose channels the budget cannot pay for, so the channels made before it cost
    // no more than the budget's limit, and what was allocated is a few times the file.
    const channelsMade = Number(at![1]) * (copies + 1);
    expect(channelsMade * CHANNEL_BYTES).toBeLessThanOrEqual(LoadBudget.forInput(bytes.byteLength).limit);
    expect(report.totalBytes).toBeLessThan(4 * bytes.byteLength);
  });

  it('the extension is registered: files that require it load', async () => {
    const model = await load((b) => {
      addPointerAnimation(b, 'a', [asPointerTrack(NODE_TRACKS[0])]);
      b.json.extensionsRequired!.push('KHR_animation_pointer');
    });
    expect(model.animations[0].channels).toHaveLength(1);
  });
});

describe('KHR_animation_pointer: material tracks', () => {
  const UV = MaterialAnimOffset.UV_TRANSFORM + TextureSlot.BASE_COLOR * UV_TRANSFORM_FLOATS;
  it('base colour, emissive and alpha cutoff factors and texture transforms become material tracks', async () => {
    const model = await pointerModel([
      { pointer: '/materials/0/pbrMetallicRoughness/baseColorFactor', input: TIMES, output: new Float32Array(16), type: 'VEC4' },
      { pointer: '/materials/1/emissiveFactor', input: TIMES, output: new Float32Array(12), type: 'VEC3', interpolation: 'STEP' },
      { pointer: '/materials/0/alphaCutoff', input: Float32Array.of(0, 3), output: new Float32Array(2), type: 'SCALAR' },
      { pointer: '/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset', input: TIMES, output: new Float32Array(8), type: 'VEC2' },
      { pointer: '/materials/0/emissiveTexture/extensions/KHR_texture_transform/rotation', input: TIMES, output: new Float32Array(4), type: 'SCALAR' },
      { pointer: '/materials/0/normalTexture/extensions/KHR_texture_transform/scale', input: TIMES, output: new Float32Array(8), type: 'VEC2' },
    ]);
    const clip = model.animations[0];
    expect(clip.channels).toEqual([]);
    expect(clip.duration).toBe(3);
    expect(clip.materialTracks!.map((t) => [t.material, t.offset, t.sampler.components])).toEqual([
      [0, MaterialAnimOffset.BASE_COLOR_FACTOR, 4],
      [1, MaterialAnimOffset.EMISSIVE_FACTOR, 3],
      [0, MaterialAnimOffset.ALPHA_CUTOFF, 1],
      [0, UV + UvTransformOffset.OFFSET, 2],
      [0, MaterialAnimOffset.UV_TRANSFORM + TextureSlot.EMISSIVE * UV_TRANSFORM_FLOATS + UvTransformOffset.ROTATION, 1],
      [0, MaterialAnimOffset.UV_TRANSFORM + TextureSlot.NORMAL * UV_TRANSFORM_FLOATS + UvTransformOffset.SCALE, 2],
    ]);
    expect(model.warnings).toEqual([]);
  });

  it('JSON pointer escapes are decoded; every texture slot resolves to its own UV block', () => {
    const root = { materials: [{}, {}], nodes: [{}] };
    const slot = (path: string) => resolvePointer(`/materials/1/${path}/extensions/KHR_texture_transform/scale`, root, 'p');
    const base = (s: number) => ({ kind: 'material', material: 1, offset: MaterialAnimOffset.UV_TRANSFORM + s * UV_TRANSFORM_FLOATS + UvTransformOffset.SCALE, components: 2 });
    expect(slot('pbrMetallicRoughness/baseColorTexture')).toEqual(base(TextureSlot.BASE_COLOR));
    expect(slot('pbrMetallicRoughness/metallicRoughnessTexture')).toEqual(base(TextureSlot.METALLIC_ROUGHNESS));
    expect(slot('normalTexture')).toEqual(base(TextureSlot.NORMAL));
    expect(slot('occlusionTexture')).toEqual(base(TextureSlot.OCCLUSION));
    expect(slot('emissiveTexture')).toEqual(base(TextureSlot.EMISSIVE));
    expect(slot('pbrMetallicRoughness/normalTexture')).toEqual({ kind: 'ignored' });
    expect(resolvePointer('/nodes/0/rotation', root, 'p')).toEqual({ kind: 'node', node: 0, path: TargetPath.ROTATION });
    // "~1" is "/" inside a token: this names a property "rotation/x", not rotation.
    expect(resolvePointer('/nodes/0/rotation~1x', root, 'p')).toEqual({ kind: 'ignored' });
    // The UV blocks end where the extensions' values begin, which fill the rest without overlap.
    expect(MaterialAnimOffset.EMISSIVE_STRENGTH).toBe(MaterialAnimOffset.UV_TRANSFORM + 5 * UV_TRANSFORM_FLOATS);
    const ranges = Object.values(EXTENSION_PROPERTIES).flatMap((p) => Object.values(p)).sort((a, b) => a[0] - b[0]);
    let next: number = MaterialAnimOffset.EMISSIVE_STRENGTH;
    for (const [offset, components] of ranges) {
      expect(offset).toBe(next);
      next = offset + components;
    }
    // MToon's values follow them; its own texture slots close the block.
    expect(MaterialAnimOffset.MTOON_SHADE_COLOR).toBe(next);
    expect(MATERIAL_ANIM_FLOATS).toBe(MaterialAnimOffset.MTOON_UV_TRANSFORM + MTOON_TEXTURE_SLOT_COUNT * UV_TRANSFORM_FLOATS);
  });
});

describe('KHR_animation_pointer: the PBR material extensions\' factors', () => {
  it('every animatable property resolves to its block, on a material that uses the extension; not on one that does not', () => {
    const extensions = Object.fromEntries(Object.keys(EXTENSION_PROPERTIES).map((name) => [name, {}]));
    const root = { materials: [{ extensions }, {}, { extensions: { KHR_materials_clearcoat: 1 } }] };
    for (const [name, properties] of Object.entries(EXTENSION_PROPERTIES)) {
      for (const [property, [offset, components]] of Object.entries(properties)) {
        const pointer = `/materials/0/extensions/${name}/${property}`;
        expect(resolvePointer(pointer, root, 'p'), pointer).toEqual({ kind: 'material', material: 0, offset, components });
        // Material 1 has no extensions; material 2's clearcoat is not an object.
        expect(resolvePointer(`/materials/1/extensions/${name}/${property}`, root, 'p')).toEqual({ kind: 'ignored' });
      }
    }
    expect(resolvePointer('/materials/2/extensions/KHR_materials_clearcoat/clearcoatFactor', root, 'p')).toEqual({ kind: 'ignored' });
    // Not animatable here: an unknown property, an extension texture's transform, an unknown extension.
    for (const pointer of [
      '/materials/0/extensions/KHR_materials_clearcoat/clearcoatGloss',
      '/materials/0/extensions/KHR_materials_clearcoat/clearcoatTexture/extensions/KHR_texture_transform/offset',
      '/materials/0/extensions/KHR_materials_unknown/factor',
    ]) expect(resolvePointer(pointer, root, 'p'), pointer).toEqual({ kind: 'ignored' });
  });

  it('an animated clearcoat factor and sheen colour are sampled into the material\'s values; the rest keep the material\'s own', async () => {
    const bytes = buildPointerScene((b) => {
      const m = b.json.materials![0] as Record<string, unknown>;
      m.extensions = { KHR_materials_clearcoat: { clearcoatFactor: 0.25, clearcoatRoughnessFactor: 0.5 }, KHR_materials_sheen: { sheenColorFactor: [0.1, 0.2, 0.3] } };
      b.json.extensionsUsed!.push('KHR_materials_clearcoat', 'KHR_materials_sheen');
      addPointerAnimation(b, 'coat', [
        { pointer: '/materials/0/extensions/KHR_materials_clearcoat/clearcoatFactor', input: Float32Array.of(0, 2), output: Float32Array.of(0, 1), type: 'SCALAR' },
        { pointer: '/materials/0/extensions/KHR_materials_sheen/sheenColorFactor', input: Float32Array.of(0, 2), output: Float32Array.of(1, 0, 0, 0, 0, 1), type: 'VEC3' },
      ]);
    });
    const model = await loadGltf(bytes);
    expect(model.warnings).toEqual([]);
    const animation = new MaterialAnimation(model);
    animation.clip = 0;
    animation.time = 0.5;
    animation.evaluate();
    const block = animation.block(0)!;
    expect(block[MaterialAnimOffset.CLEARCOAT_FACTOR]).toBeCloseTo(0.25, 6);
    expect(Array.from(block.subarray(MaterialAnimOffset.SHEEN_COLOR_FACTOR, MaterialAnimOffset.SHEEN_COLOR_FACTOR + 3))).toEqual([0.75, 0, 0.25]);
    expect(block[MaterialAnimOffset.CLEARCOAT_ROUGHNESS_FACTOR]).toBe(0.5);
    expect(block[MaterialAnimOffset.IOR]).toBe(1.5);
    // 0 stands for an infinite attenuation distance.
    expect(block[MaterialAnimOffset.ATTENUATION_DISTANCE]).toBe(0);
  });
});

describe('KHR_animation_pointer: what is ignored', () => {
  it('other pointers are ignored, listed in one warning with their channel paths', async () => {
    const model = await pointerModel([
      asPointerTrack(NODE_TRACKS[0]),
      { pointer: '/materials/0/pbrMetallicRoughness/metallicFactor', input: TIMES, output: new Float32Array(4), type: 'SCALAR' },
      { pointer: '/cameras/0/perspective/yfov', input: TIMES, output: new Float32Array(4), type: 'SCALAR' },
      { pointer: '/extensions/KHR_lights_punctual/lights/0/color', input: TIMES, output: new Float32Array(12), type: 'VEC3' },
      { pointer: '/nodes/1/matrix', input: TIMES, output: new Float32Array(64), type: 'MAT4' },
    ]);
    expect(model.animations[0].channels).toHaveLength(1);
    expect(model.animations[0].materialTracks).toBeUndefined();
    const warnings = model.warnings.filter((w) => w.message.includes('KHR_animation_pointer'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].path).toBe('animations');
    for (const c of [1, 2, 3, 4]) expect(warnings[0].message).toContain(`animations[0].channels[${c}]`);
    expect(warnings[0].message).toContain('/cameras/0/perspective/yfov');
    expect(warnings[0].message).not.toContain('channels[0]');
  });
});

describe('KHR_animation_pointer: many ignored channels', () => {
  it('the warning names the first eight and counts the rest', async () => {
    const yfov = (i: number): PointerTrack => ({ pointer: `/cameras/${i}/perspective/yfov`, input: TIMES, output: new Float32Array(4), type: 'SCALAR' });
    const model = await pointerModel(Array.from({ length: 11 }, (_, i) => yfov(i)));
    const [warning] = model.warnings.filter((w) => w.message.includes('KHR_animation_pointer'));
    expect(warning.message).toContain('animations[0].channels[7] (/cameras/7/perspective/yfov)');
    expect(warning.message).not.toContain('channels[8]');
    expect(warning.message).toMatch(/ and 3 more$/);
  });
});

describe('KHR_animation_pointer: bad input is a GltfError naming the path', () => {
  const POINTER_PATH = 'animations[0].channels[0].target.extensions.KHR_animation_pointer.pointer';
  const one = (pointer: string, type: PointerTrack['type'] = 'VEC4', values = 16): (b: GltfBuilder) => void =>
    (b) => addPointerAnimation(b, 'bad', [{ pointer, input: TIMES, output: new Float32Array(values), type }]);

  it.each([
    ['no leading slash', 'nodes/1/rotation', POINTER_PATH, /not a JSON pointer/],
    ['a bad escape', '/nodes/1/rot~2ation', POINTER_PATH, /not a JSON pointer/],
    ['a node index out of range', '/nodes/4/rotation', POINTER_PATH, /nodes\[4\] does not exist/],
    ['a non-canonical index', '/nodes/01/rotation', POINTER_PATH, /not an index into nodes/],
    ['a name for an index', '/nodes/arm/rotation', POINTER_PATH, /not an index into nodes/],
    ['a missing index', '/materials', POINTER_PATH, /not an index into materials/],
    ['a material index out of range', '/materials/2/pbrMetallicRoughness/baseColorFactor', POINTER_PATH, /materials\[2\] does not exist/],
    ['a mesh index out of range', '/meshes/1/weights', POINTER_PATH, /meshes\[1\] does not exist/],
  ])('%s', async (_, pointer, path, problem) => {
    const e = await loadError(one(pointer));
    expect(e.path).toBe(path);
    expect(e.problem).toMatch(problem);
  });

  it.each([
    ['VEC3 for a rotation', '/nodes/1/rotation', 'VEC3', 12, /3 components per element; rotation needs 4/],
    ['VEC4 for a translation', '/nodes/1/translation', 'VEC4', 16, /4 components per element; translation needs 3/],
    ['VEC2 for morph weights', '/nodes/3/weights', 'VEC2', 8, /2 components per element; weights needs 1/],
    ['VEC3 for a base colour', '/materials/0/pbrMetallicRoughness/baseColorFactor', 'VEC3', 12, /3 components per element; .*baseColorFactor.* needs 4/],
    ['VEC4 for an alpha cutoff', '/materials/0/alphaCutoff', 'VEC4', 16, /4 components per element; .*alphaCutoff.* needs 1/],
    ['SCALAR for a UV offset', '/materials/0/normalTexture/extensions/KHR_texture_transform/offset', 'SCALAR', 4, /1 components per element; .*offset.* needs 2/],
  ] as const)('wrong output type: %s', async (_, pointer, type, values, problem) => {
    const e = await loadError(one(pointer, type, values));
    expect(e.path).toBe('animations[0].samplers[0].output');
    expect(e.problem).toMatch(problem);
  });

  it('weights on a node without a mesh', async () => {
    const e = await loadError(one('/nodes/1/weights', 'SCALAR', 8));
    expect(e.path).toBe(POINTER_PATH);
    expect(e.problem).toMatch(/has no mesh/);
  });

  it('a pointer channel without the extension object, or with a pointer that is not a string', async () => {
    const without = await loadError((b) => {
      one('/nodes/1/rotation')(b);
      delete b.json.animations![0].channels[0].target.extensions;
    });
    expect(without.path).toBe('animations[0].channels[0].target.extensions.KHR_animation_pointer');
    const number = await loadError((b) => {
      one('/nodes/1/rotation')(b);
      b.json.animations![0].channels[0].target.extensions = { KHR_animation_pointer: { pointer: 7 } };
    });
    expect(number.path).toBe(POINTER_PATH);
    expect(number.problem).toMatch(/7 is not a string/);
  });

  it('the same property animated twice in one clip, by a core and a pointer channel or two pointers', async () => {
    const twice = await loadError((b) => {
      b.addAnimationTracks('core', [NODE_TRACKS[0]]);
      const anim = b.json.animations![0];
      const { channels } = b.json.animations![addPointerAnimation(b, 'p', [asPointerTrack(NODE_TRACKS[0])])];
      anim.channels.push({ ...channels[0], sampler: 0 });
      b.json.animations!.pop();
    });
    expect(twice.path).toBe('animations[0].channels[1].target.extensions.KHR_animation_pointer.pointer');
    expect(twice.problem).toMatch(/nodes\[1\]\.rotation is already animated/);
    const colour = { pointer: '/materials/0/alphaCutoff', input: TIMES, output: new Float32Array(4), type: 'SCALAR' } as const;
    const material = await loadError((b) => addPointerAnimation(b, 'p', [colour, colour]));
    expect(material.path).toBe('animations[0].channels[1].target.extensions.KHR_animation_pointer.pointer');
    expect(material.problem).toMatch(/already animated/);
  });
});

describe('KHR_animation_pointer: random pointers', () => {
  it('load, or are refused with a GltfError, never another exception', async () => {
    const TOKENS = ['nodes', 'meshes', 'materials', 'cameras', '0', '1', '3', '9', '-1', '01', '1e0', 'rotation', 'weights', 'translation',
      'pbrMetallicRoughness', 'baseColorFactor', 'baseColorTexture', 'emissiveFactor', 'alphaCutoff', 'extensions', 'KHR_texture_transform',
      'offset', 'scale', '~', '~0', '~1', '~2', '', '__proto__', 'constructor'];
    const TYPES = [['SCALAR', 1], ['VEC2', 2], ['VEC3', 3], ['VEC4', 4]] as const;
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const outcomes = { loaded: 0, refused: 0 };
    for (let i = 0; i < 400; i++) {
      const tokens = Array.from({ length: 1 + next(6) }, () => TOKENS[next(TOKENS.length)]);
      const pointer = (next(8) === 0 ? '' : '/') + tokens.join('/');
      const [type, n] = TYPES[next(TYPES.length)];
      const result = await pointerModel([{ pointer, input: TIMES, output: new Float32Array(4 * n), type }]).then(
        (m) => m, (e: unknown) => e);
      if (result instanceof GltfError) outcomes.refused++;
      else if (result instanceof Error || !(result as Model).animations) throw new Error(`${pointer} (${type}): ${String(result)}`);
      else outcomes.loaded++;
    }
    expect(outcomes.loaded).toBeGreaterThan(50);
    expect(outcomes.refused).toBeGreaterThan(50);
  });
});
