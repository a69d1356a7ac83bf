import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { assetPath } from '../../support/assets.ts';

/**
 * The VRM runtime is code a page fetches only for a VRM model: anim/instance.ts registers its
 * loader with the glTF loader (gltf/extensions/vrm-dependents.ts), which starts it for a file
 * with a VRM part and resolves once it has arrived, so `createModelInstance` stays synchronous.
 * Each case imports a fresh module graph (vi.resetModules), in which nothing has loaded it yet.
 */
type Fresh = {
  instance: typeof import('../../../src/anim/instance.ts');
  runtime: typeof import('../../../src/anim/vrm/runtime-loader.ts');
  load: typeof import('../../../src/gltf/load.ts');
};

async function freshGraph(withInstance: boolean): Promise<Fresh> {
  vi.resetModules();
  const runtime = await import('../../../src/anim/vrm/runtime-loader.ts');
  const load = await import('../../../src/gltf/load.ts');
  // Only importing instance.ts registers the runtime with the loader.
  const instance = withInstance ? await import('../../../src/anim/instance.ts') : (undefined as unknown as Fresh['instance']);
  return { instance, runtime, load };
}

const avatarBytes = () => buildBuiltinGlb('vrm-avatar');
let avatar: Model | undefined;
const loadedAvatar = async () => (avatar ??= await loadGltf(avatarBytes()));

describe('the VRM runtime is loaded with a VRM file, and only then', () => {
  it('a plain glTF does not load it; a VRM file does before loadGltf resolves, so createModelInstance gives it its steps', async () => {
    const { instance, runtime, load } = await freshGraph(true);
    const fox = await load.loadGltf(new Uint8Array(readFileSync(assetPath('Fox'))));
    expect(runtime.loadedVrmRuntime()).toBeUndefined();
    expect(instance.createModelInstance(fox).vrm).toBeUndefined();
    const model = await load.loadGltf(avatarBytes());
    const VrmRuntime = runtime.loadedVrmRuntime();
    expect(VrmRuntime).toBeDefined();
    const created = instance.createModelInstance(model);
    expect(created.vrm).toBeInstanceOf(VrmRuntime!);
    expect(created.vrm!.springs).toBeDefined();
  });

  it('without anim/instance.ts in the page the glTF loader does not fetch it (gltf does not depend on anim)', async () => {
    const { runtime, load } = await freshGraph(false);
    const model = await load.loadGltf(avatarBytes());
    expect(model.vrm).toBeDefined();
    expect(runtime.loadedVrmRuntime()).toBeUndefined();
  });

  it('a VRM model made without loadGltf fails in createModelInstance naming loadVrmRuntime, and works after awaiting it', async () => {
    const model = await loadedAvatar();
    const { instance, runtime } = await freshGraph(true);
    expect(() => instance.createModelInstance(model)).toThrow(/VRM runtime is not loaded yet.*await loadVrmRuntime\(\)/);
    const VrmRuntime = await runtime.loadVrmRuntime();
    expect(runtime.loadedVrmRuntime()).toBe(VrmRuntime);
    expect(await runtime.loadVrmRuntime()).toBe(VrmRuntime);
    expect(instance.createModelInstance(model).vrm).toBeInstanceOf(VrmRuntime);
  });
});
