/**
 * The library entry (src/index.ts). It imports in Node without a DOM (the loader, the
 * player, the jobs and the bake run there); it exports exactly the names below, tier by
 * tier; and every library name README.md and the guides in docs/ write as code is one of them,
 * or one of the few internals they name to explain how something works — so the documentation
 * documents nothing a user cannot import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIBRARY_ENTRIES } from '../vite.config.ts';
import { docFiles } from './support/docs.ts';

const ROOT = resolve(import.meta.dirname, '..');

/** The public API by tier, as src/index.ts groups it: `values` exist at run time, `types` only for the compiler. */
const TIERS = {
  element: {
    values: ['DEFAULT_CROSSFADE', 'DEFAULT_EXPOSURE', 'DEFAULT_SPEED', 'EXTRA_MODEL_TAG', 'ExtraModelElement', 'SkinnedMeshViewerElement', 'SourceError', 'TAG_NAME', 'loadModelSource', 'parseCameraOrbit'],
    types: [
      'AppendAnimationOptions', 'CameraOrbit', 'DetachAnimationOptions', 'ExtraModelAttributes', 'ExtraModelChangeDetail', 'Finger', 'NumberAttribute', 'HotspotQuery', 'HotspotVector2', 'HotspotVector3', 'Keyframe', 'LoadSourceOptions', 'OrbitRadius', 'Path', 'PlayOptions',
      'SkinnedMeshViewerAttributes', 'SkinnedMeshViewerCustomEvents', 'SkinnedMeshViewerEventMap', 'SphericalPosition', 'SurfacePoint', 'ToBlobOptions', 'Vector2D', 'Vector3D', 'ViewerAnimationEndDetail', 'ViewerAnimationLayerDetail',
      'ViewerCameraChangeDetail', 'ViewerCameraOrbit', 'ViewerEnvironmentDetail', 'ViewerErrorDetail', 'ViewerErrorKind', 'ViewerLoadDetail', 'ViewerLoopDetail', 'ViewerProgressDetail', 'ViewerStats',
      'ViewerVariantDetail', 'ViewerVector3', 'ViewerVisibilityDetail',
    ],
  },
  rendererAndPlayer: {
    values: [
      'AnimationPlayer', 'GpuLimitError', 'OrbitCamera', 'Renderer', 'ToneMapping', 'WebGpuUnsupportedError',
      'browserImageDecoder', 'canvasPixelSize', 'computeInstanceBounds', 'configureCanvas', 'createCanvasRenderer', 'createOffscreenTarget',
      'defaultRenderSettings', 'observeCanvasSize', 'readTexturePixels', 'requestWebGpuDevice', 'srgbViewFormat',
    ],
    types: [
      'AllocationLimits', 'Bounds', 'Camera', 'CanvasRenderer', 'CanvasRendererOptions', 'ClipLayer', 'ConfigureCanvasOptions', 'ConfiguredCanvas', 'DecodedExternalImage',
      'DecodedImage', 'DecodedPixels', 'ImageDecoder', 'LayerStack', 'PixelSize', 'RenderSettings', 'RenderStats', 'RendererOptions',
      'RequestDeviceOptions', 'SkinnedNormalMode', 'SkinningPath',
    ],
  },
  debugViews: {
    values: ['DEBUG_VIEW_NAMES', 'DebugView', 'debugViewNames', 'parseDebugViews'],
    types: ['DebugViewName'],
  },
  environment: {
    values: ['EnvironmentError', 'decodeImageEnvironment', 'neutralEnvironment', 'parseExrEnvironment', 'parseHdr', 'prefilterEnvironment', 'writeHdr'],
    types: ['Environment', 'EquirectImage'],
  },
  instanceAndJobs: {
    values: [
      'AdditiveJob', 'AimJob', 'BlendingJob', 'LayerBlendingJob', 'RootMotionJob', 'SkinnedBoundsJob', 'TwoBoneIKJob', 'accumulateRootMotion', 'centerOfRotationBounds',
      'SkinnedRaycaster', 'createClipCursor', 'createModelInstance', 'createPose', 'createRayHit', 'createRootMotionTrack', 'createSkinnedBounds', 'editBindPose', 'findSlot',
      'localToModel', 'lockRootInPlace', 'makeAdditiveClip', 'rootMotionMatrix', 'sampleClip', 'setIdentityPose', 'setRestPose', 'skinPalette',
      'subtreeMask', 'updateMatricesAndPalettes', 'updateModelInstance',
      'ExpressionJob', 'LookAtJob', 'MAX_FIXED_STEPS', 'NodeConstraintJob', 'SpringBoneJob', 'VrmRuntime', 'loadVrmRuntime', 'rotateVrm0',
    ],
    types: [
      'BlendLayer', 'CentersOfPrimitive', 'ClipCursor', 'ClipTracks', 'MaterialAnimation', 'MaterialOverlay', 'MeshSkinBounds', 'ModelInstance', 'NumArray', 'Pose',
      'RayHit', 'RootMotionTrack', 'SkinnedBounds', 'SkinningMethod', 'SpringStepMode',
    ],
  },
  batchAndCrowd: {
    values: [
      'AUTO_GPU_MIN_INSTANCES', 'Crowd', 'GpuCrowd', 'GpuPoseEvaluator', 'createCrowd', 'createInstanceBatch', 'findRootMotion', 'movingMeshNodes',
      'sampleInstanceBatch', 'updateBatchMatricesAndPalettes', 'updateInstanceBatch',
    ],
    types: [
      'AnyCrowd', 'CrowdEvaluator', 'CrowdOptions', 'CrowdPoses', 'CrowdRootMotion', 'GpuPaletteSource', 'GpuPoseEvaluatorOptions', 'HierarchyMode', 'InstanceBatch',
      'InstanceBatchOptions', 'RootLock',
    ],
  },
  loading: {
    values: ['GltfError', 'loadGltf', 'resolveGltfUri'],
    types: [
      'Channel', 'Clip', 'ExpressionTrack', 'GltfWarning', 'Hierarchy', 'Image', 'LoadOptions', 'Material', 'Mesh', 'MeshNode', 'Model', 'MorphTarget', 'NodeInfo',
      'Primitive', 'Sampler', 'Skin', 'Texture', 'TextureInfo', 'TextureSampler', 'UriPolicy',
      'DrawShape', 'ModelShape', 'PrimitiveShape', 'AccessorFormat',
      'AccessorData', 'AnisotropyExtension', 'BudgetState', 'ClearcoatExtension', 'ComponentArray', 'ComponentType', 'DiffuseTransmissionExtension', 'Interpolation',
      'IridescenceExtension', 'MToonMaterial', 'MToonOutlineWidthMode', 'MaterialShading', 'MaterialTrack', 'QuantizedAttributes', 'Rgb', 'SheenExtension',
      'SpecularExtension', 'TargetPath', 'TextureSource', 'TextureTransform', 'TransmissionExtension', 'VolumeExtension',
      'Vrm', 'Vrm0MaterialProperties', 'VrmConstraintType', 'VrmExpression', 'VrmLookAt', 'VrmMaterialColorBind', 'VrmMaterialColorType', 'VrmMeta', 'VrmMorphBind', 'VrmNodeConstraint',
      'VrmOverride', 'VrmRangeMap', 'VrmSpring', 'VrmSpringBones', 'VrmTextureTransformBind',
    ],
  },
  animationLibrary: {
    values: ['RetargetError', 'addClips', 'loadAnimationLibrary', 'mapJoints', 'retargetClips'],
    types: [
      'AnimationLibrary', 'AnimationLibraryOptions', 'HumanoidBone', 'HumanoidMap', 'JointMapOptions', 'JointMapping', 'JointMatch', 'JointPair', 'ReferencePose',
      'RetargetOptions', 'RetargetResult', 'RetargetSkeleton',
    ],
  },
  bake: {
    values: ['bakeModel', 'bakeToGlb', 'bakeToJson', 'bakeToObj', 'createSkinnedVertices', 'resolveAnimation', 'skinPrimitive'],
    types: ['BakeExpression', 'BakeOptions', 'BakeResult', 'BakedPrimitive', 'SkinnedVertices', 'SpringSteps'],
  },
  builtin: {
    values: ['DEFAULT_BUILTIN_MODEL', 'buildBuiltinGlb', 'builtinModelNames'],
    types: [],
  },
};

/**
 * Library names the README or docs/*.md write although they are not exported: they name them to
 * say how the renderer or the kernel works, not as API. Keep this short; each must still exist.
 */
const INTERNAL_NAMED_IN_README: string[] = [
  // How a material kind plugs into the mesh pipelines (docs/renderer.md, on adding a material path).
  'MATERIAL_PATHS',
  // How <extra-model> children become one model: the element composes them.
  'composeModels',
];

const allOf = (kind: 'values' | 'types') => Object.values(TIERS).flatMap((tier) => tier[kind]).sort();

/** Names a module's `export { … } from` / `export type { … } from` / `export * from` statements give, following `export *`. */
function reexports(file: string): { values: string[]; types: string[] } {
  const text = readFileSync(file, 'utf8');
  const values: string[] = [], types: string[] = [];
  for (const [, typeOnly, list] of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s*from/g)) {
    for (const raw of list.split(',')) {
      const item = raw.trim();
      if (!item) continue;
      const isType = !!typeOnly || item.startsWith('type ');
      const name = item.replace(/^type\s+/, '').split(/\s+as\s+/).pop()!;
      (isType ? types : values).push(name);
    }
  }
  for (const [, from] of text.matchAll(/export\s+\*\s+from\s+'([^']+)'/g)) {
    const inner = reexports(resolve(file, '..', from));
    values.push(...inner.values);
    types.push(...inner.types);
  }
  return { values: values.sort(), types: types.sort() };
}

/** Every name any module under src/ declares as an export (what the docs could mean by a name in code). */
function sourceExports(): Set<string> {
  const names = new Set<string>();
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8');
        const declared = /export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|const|let|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g;
        for (const [, name] of text.matchAll(declared)) names.add(name);
      }
    }
  };
  visit(join(ROOT, 'src'));
  return names;
}

/** Identifiers inside the documentation's inline code and code blocks. */
function docsCodeNames(): Set<string> {
  const text = docFiles().map((file) => readFileSync(join(ROOT, file), 'utf8')).join('\n');
  const code = [...text.matchAll(/```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g)].map((m) => m[1] ?? m[2]).join('\n');
  return new Set(code.match(/[A-Za-z_$][\w$]*/g) ?? []);
}

describe('the library entry (src/index.ts)', () => {
  it('imports in Node without a DOM and exports exactly the public values, tier by tier', async () => {
    expect(typeof (globalThis as { customElements?: unknown }).customElements).toBe('undefined');
    const api = await import('../src/index.ts');
    expect(Object.keys(api).sort()).toEqual(allOf('values'));
    expect(api.TAG_NAME).toBe('skinned-mesh-viewer');
    expect(api.SkinnedMeshViewerElement.observedAttributes).toEqual([
      'src', 'builtin', 'animation', 'autoplay', 'loop', 'speed', 'crossfade-duration', 'camera-controls',
      'camera-orbit', 'exposure', 'background', 'skinning', 'debug', 'alt', 'instances', 'crowd-evaluator', 'root-motion', 'shadows',
      'variant-name', 'animation-src', 'poster', 'reveal', 'loading', 'animation-name', 'animation-crossfade-duration', 'with-credentials', 'camera-target', 'field-of-view', 'min-field-of-view',
      'max-field-of-view', 'min-camera-orbit', 'max-camera-orbit', 'interpolation-decay', 'auto-rotate', 'auto-rotate-delay',
      'rotation-per-second', 'disable-zoom', 'disable-pan', 'disable-tap', 'orbit-sensitivity', 'zoom-sensitivity', 'pan-sensitivity',
      'touch-action', 'interaction-prompt', 'interaction-prompt-style', 'orientation', 'scale', 'interaction-prompt-threshold',
      'environment-image', 'skybox-image', 'tone-mapping', 'shadow-intensity', 'shadow-softness',
      'expression', 'look-at', 'auto-blink', 'spring-bones', 'vrm0-turn', 'outline-width', 'a11y',
    ]);
  });

  it('re-exports exactly the public values and types, and no name twice', () => {
    const found = reexports(join(ROOT, 'src/index.ts'));
    expect(found.values).toEqual(allOf('values'));
    expect(found.types).toEqual(allOf('types'));
    const all = [...allOf('values'), ...allOf('types')];
    expect(all.filter((name, i) => all.indexOf(name) !== i)).toEqual([]);
  });

  it('has a subpath for each optional part, exporting exactly that part (package.json `exports`, vite.config.ts LIBRARY_ENTRIES)', () => {
    const part: Record<string, keyof typeof TIERS> = {
      './element': 'element', './crowd': 'batchAndCrowd', './retarget': 'animationLibrary', './environment': 'environment', './bake': 'bake',
    };
    const subpaths = LIBRARY_ENTRIES.map((e) => e.subpath);
    expect(subpaths).toEqual(['.', ...Object.keys(part)]);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string; types: string } | string> };
    for (const { name, subpath, source } of LIBRARY_ENTRIES) {
      const target = pkg.exports[subpath] as { import: string; types: string };
      expect(target.import, subpath).toBe(`./dist/lib/${name}.js`);
      expect(target.types, subpath).toBe(`./dist/types/${source.replace(/^src\//, '').replace(/\.ts$/, '.d.ts')}`);
      if (subpath === '.') continue;
      const found = reexports(join(ROOT, source));
      expect(found.values, subpath).toEqual([...TIERS[part[subpath]].values].sort());
      expect(found.types, subpath).toEqual([...TIERS[part[subpath]].types].sort());
    }
  });

  it('exports every library name README.md and docs/*.md write as code', () => {
    const library = sourceExports();
    const publicNames = new Set([...allOf('values'), ...allOf('types')]);
    expect(docFiles()).toContain('docs/element.md');
    const named = [...docsCodeNames()].filter((name) => library.has(name));
    expect(named.filter((name) => !publicNames.has(name) && !INTERNAL_NAMED_IN_README.includes(name)).sort()).toEqual([]);
    // The exceptions stay true: still in the library, still in the docs, still not exported.
    for (const name of INTERNAL_NAMED_IN_README) {
      expect(library.has(name), name).toBe(true);
      expect(named, name).toContain(name);
      expect(publicNames.has(name), name).toBe(false);
    }
  });

  it('loads and plays a built-in model with no browser at all', async () => {
    const { AnimationPlayer, buildBuiltinGlb, loadGltf } = await import('../src/index.ts');
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('character'), { name: 'character' }));
    player.play();
    player.update(0.25);
    expect(player.time).toBeCloseTo(0.25, 9);
  });
});
