/** `animation-src`: clip files fetched like `src`, retargeted onto the element's model, appended in order; failures skipped by name. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addAnimationSources, parseAnimationSources } from '../../../src/element/loading/animation-sources.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { baseJoints, buildRig, clipKeys, relativeError, skinnedAt } from '../../anim/retarget/fixtures.ts';

const joints = baseJoints();
const files = new Map<string, Uint8Array>([
  ['https://site.test/anims/walk.glb', buildRig(joints, { keys: clipKeys(joints, 1), animationOnly: true, prefix: 'mixamorig:' })],
  ['https://site.test/anims/dance.glb', buildRig(joints, { keys: clipKeys(joints, 2), animationOnly: true })],
  ['https://site.test/anims/robot.glb', buildRig(joints.map((j, i) => ({ ...j, name: `gear${i}` })), { keys: clipKeys(joints, 3), animationOnly: true })],
]);
const fetchFn = (async (u: URL | string) => {
  const body = files.get(String(u));
  return body ? new Response(body.slice().buffer) : new Response('', { status: 404, statusText: 'Not Found' });
}) as typeof fetch;

describe('animation-src', () => {
  it('parses whitespace-separated URLs', () => {
    expect(parseAnimationSources(null)).toEqual([]);
    expect(parseAnimationSources('  a.glb\n b.glb  ')).toEqual(['a.glb', 'b.glb']);
  });

  it("appends each file's clips in attribute order, retargeted; a clashing name gets the file name in front", async () => {
    const model = await loadGltf(buildRig(joints, { keys: clipKeys(joints, 9) }), { name: 'hero.glb' });
    const warnings: string[] = [];
    const out = await addAnimationSources(model, 'anims/walk.glb anims/dance.glb', { baseUrl: 'https://site.test/page.html', fetch: fetchFn, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([]);
    expect(out.animations.map((c) => c.name)).toEqual(['Walk', 'walk.glb/Walk', 'dance.glb/Walk']);
    expect(model.animations).toHaveLength(1);
    // dance.glb's clip plays on the model as it plays natively on an identical skinned copy.
    const native = await loadGltf(buildRig(joints, { keys: clipKeys(joints, 2) }), { name: 'native' });
    expect(relativeError(skinnedAt(out, out.animations[2], 0.3), skinnedAt(native, native.animations[0], 0.3))).toBeLessThan(1e-6);
  });

  it('skips a file it cannot fetch or map, naming it, and keeps the others', async () => {
    const model = await loadGltf(buildRig(joints), { name: 'hero.glb' });
    const warnings: string[] = [];
    const out = await addAnimationSources(model, 'anims/missing.glb anims/robot.glb anims/dance.glb', { baseUrl: 'https://site.test/', fetch: fetchFn, warn: (m) => warnings.push(m) });
    expect(out.animations.map((c) => c.name)).toEqual(['Walk']);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/animation-src "anims\/missing\.glb" was skipped: .*HTTP 404/);
    expect(warnings[1]).toMatch(/animation-src "anims\/robot\.glb" was skipped: no joint in common/);
  });

  it('reports target joints left without a source', async () => {
    const model = await loadGltf(buildRig([...joints, { name: 'Tail', parent: 0, t: [0, 0, -0.2], r: [0, 0, 0, 1] }]), { name: 'fox-ish.glb' });
    const warnings: string[] = [];
    const out = await addAnimationSources(model, 'anims/dance.glb', { baseUrl: 'https://site.test/', fetch: fetchFn, warn: (m) => warnings.push(m) });
    expect(out.animations).toHaveLength(1);
    expect(warnings).toEqual(['animation-src "anims/dance.glb": 1 joint(s) of fox-ish.glb have no source joint and keep their rest pose: Tail']);
  });
});

describe('animation-src with a VRM animation (.vrma)', () => {
  it('puts its clip on a VRM avatar with the expression and look-at tracks', async () => {
    const vrma = new Uint8Array(readFileSync('../shared/assets/vrm/test.vrma'));
    const avatar = await loadGltf(new Uint8Array(readFileSync('../shared/assets/vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm')), { name: 'avatar.vrm' });
    const fetchVrma = (async (u: URL | string) => String(u) === 'https://site.test/anims/test.vrma'
      ? new Response(vrma.slice().buffer)
      : new Response('', { status: 404, statusText: 'Not Found' })) as typeof fetch;
    const warnings: string[] = [];
    const out = await addAnimationSources(avatar, 'anims/test.vrma', { baseUrl: 'https://site.test/', fetch: fetchVrma, warn: (m) => warnings.push(m) });
    // Reported: the clip's expression and look-at proxy nodes (which play as tracks, not joints)
    // and the avatar's joints it does not key; nothing else.
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/outside the mapped skeleton are ignored: happy, lookAt$/);
    expect(warnings[1]).toMatch(/joint\(s\) of avatar\.vrm have no source joint/);
    const added = out.animations.slice(avatar.animations.length);
    expect(added).toHaveLength(1);
    expect(added[0].expressionTracks?.map((t) => t.name)).toEqual(['happy']);
    expect(added[0].lookAtTrack).toBeDefined();
    expect(added[0].channels.length).toBeGreaterThan(20);
  });
});
