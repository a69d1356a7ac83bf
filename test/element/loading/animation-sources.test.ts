/** `animation-src`: clip files fetched like `src`, retargeted onto the element's model, appended in order; failures skipped by name. */
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
