/**
 * The library entry in Node: importing it must not throw without a DOM (the loader, the
 * player and the bake are usable there), and it exposes the documented API.
 */
import { describe, expect, it } from 'vitest';

describe('the library entry (src/index.ts)', () => {
  it('imports in Node without a DOM and exports the public API', async () => {
    expect(typeof (globalThis as { customElements?: unknown }).customElements).toBe('undefined');
    const api = await import('../../src/index.ts');
    const names = Object.keys(api).sort();
    expect(names).toEqual([
      'AnimationPlayer', 'BlendingJob', 'Crowd', 'DEBUG_VIEW_NAMES', 'DEFAULT_BUILTIN_MODEL', 'DEFAULT_CROSSFADE', 'DEFAULT_EXPOSURE',
      'DEFAULT_SPEED', 'DebugView', 'GltfError', 'GpuLimitError', 'OrbitCamera', 'Renderer', 'SkinnedMeshViewerElement', 'SourceError',
      'TAG_NAME', 'ToneMapping', 'WebGpuUnsupportedError', 'bakeModel', 'bakeToGlb', 'bakeToJson', 'bakeToObj',
      'browserImageDecoder', 'buildBuiltinGlb', 'builtinModelNames', 'canvasPixelSize', 'computeInstanceBounds',
      'configureCanvas', 'createInstanceBatch', 'createModelInstance', 'createOffscreenTarget', 'createSkinnedVertices', 'debugViewNames',
      'defaultRenderSettings', 'findRootMotion', 'loadGltf', 'loadModelSource', 'observeCanvasSize', 'parseCameraOrbit', 'parseDebugViews',
      'readTexturePixels', 'renderCrowd', 'requestWebGpuDevice', 'resolveAnimation', 'sampleInstanceBatch', 'skinPrimitive', 'srgbViewFormat',
      'updateBatchMatricesAndPalettes', 'updateInstanceBatch', 'updateMatricesAndPalettes', 'updateModelInstance',
    ].sort());
    expect(api.TAG_NAME).toBe('skinned-mesh-viewer');
    expect(api.SkinnedMeshViewerElement.observedAttributes).toEqual([
      'src', 'builtin', 'animation', 'autoplay', 'loop', 'speed', 'crossfade-duration', 'camera-controls',
      'camera-orbit', 'exposure', 'background', 'skinning', 'debug', 'alt', 'instances', 'root-motion', 'shadows',
    ]);
  });

  it('loads and plays a built-in model with no browser at all', async () => {
    const { AnimationPlayer, buildBuiltinGlb, loadGltf } = await import('../../src/index.ts');
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('character'), { name: 'character' }));
    player.play();
    player.update(0.25);
    expect(player.time).toBeCloseTo(0.25, 9);
  });
});
