/**
 * The debug overlays' shared constants and layouts against shaders/debug.wgsl, the
 * load-time builders (wireframe edges, skeleton joint records), and the overlay module
 * compiling on Dawn.
 */
import { describe, expect, it } from 'vitest';
import debugWgsl from '../../../shaders/debug.wgsl?raw';
import meshWgsl from '../../../shaders/mesh.wgsl?raw';
import { loadGltf } from '../../../src/gltf/load.ts';
import {
  BOUNDS_BOX_LAYOUT, BOUNDS_BOX_STRIDE, BOUNDS_EDGE_VERTICES, BoundsBoxLocation, DebugLineKind, LINE_SEGMENT_VERTICES, SHAPE_SEGMENT_VERTICES, SKELETON_JOINT_LAYOUT, SKELETON_JOINT_STRIDE,
  SkeletonJointLocation, SkeletonJointOffset,
} from '../../../src/gpu/layouts/debug.ts';
import { WORLD_BOX_FLOATS } from '../../../src/gpu/draw/cpu-culling.ts';
import { DEBUG_SHADER_SOURCE } from '../../../src/gpu/pipelines/debug-wgsl.ts';
import { skeletonJointRecords, wireframeIndices } from '../../../src/gpu/debug/view-draws.ts';
import { buildChain } from '../../support/fixtures.ts';
import { expectNoGpuErrors, testDevice } from '../gpu-test.ts';
import { screamingSnake, structLocations, u32Constants } from '../wgsl-layout.ts';

/** WGSL type of each SkeletonJointInput field → the vertex format that feeds it. */
const FORMAT_OF_TYPE: Record<string, GPUVertexFormat> = { vec3f: 'float32x3', u32: 'uint32', i32: 'sint32' };
const FORMAT_BYTES: Record<string, number> = { float32x3: 12, uint32: 4, sint32: 4 };

describe('debug overlay layouts ↔ shaders/debug.wgsl', () => {
  it('SkeletonJointInput: locations, formats and offsets of the instance-stepped joint buffer', () => {
    const locations = structLocations(debugWgsl, 'SkeletonJointInput');
    expect(Object.fromEntries([...locations].map(([name, n]) => [screamingSnake(name), n]))).toEqual(SkeletonJointLocation);
    const types = Object.fromEntries([...debugWgsl.matchAll(/@location\(\d+\)\s*(\w+)\s*:\s*(\w+)/g)]
      .filter(([, name]) => locations.has(name)).map(([, name, type]) => [name, type]));
    expect(SKELETON_JOINT_LAYOUT.stepMode).toBe('instance');
    expect(SKELETON_JOINT_LAYOUT.arrayStride).toBe(SKELETON_JOINT_STRIDE);
    const attributes = [...SKELETON_JOINT_LAYOUT.attributes].sort((a, b) => a.offset - b.offset);
    let end = 0;
    for (const a of attributes) {
      const [name] = [...locations].find(([, n]) => n === a.shaderLocation)!;
      expect(a.format, name).toBe(FORMAT_OF_TYPE[types[name]]);
      expect(a.offset, name).toBe(SkeletonJointOffset[screamingSnake(name) as keyof typeof SkeletonJointOffset]);
      expect(a.offset, `${name} overlaps the previous attribute`).toBeGreaterThanOrEqual(end);
      end = a.offset + FORMAT_BYTES[a.format];
    }
    expect(end).toBeLessThanOrEqual(SKELETON_JOINT_STRIDE);
  });

  it('BoundsBoxInput: min then max corner, float32x3 each, one box per instance; 24 line vertices per box', () => {
    const locations = structLocations(debugWgsl, 'BoundsBoxInput');
    expect(Object.fromEntries([...locations].map(([name, n]) => [screamingSnake(name), n]))).toEqual(BoundsBoxLocation);
    expect(BOUNDS_BOX_LAYOUT.stepMode).toBe('instance');
    expect(BOUNDS_BOX_LAYOUT.arrayStride).toBe(BOUNDS_BOX_STRIDE);
    expect([...BOUNDS_BOX_LAYOUT.attributes]).toEqual([
      { shaderLocation: BoundsBoxLocation.BOX_MIN, format: 'float32x3', offset: 0 },
      { shaderLocation: BoundsBoxLocation.BOX_MAX, format: 'float32x3', offset: 12 },
    ]);
    // InstanceCuller.boxes as they are: WORLD_BOX_FLOATS floats per box.
    expect(BOUNDS_BOX_STRIDE).toBe(WORLD_BOX_FLOATS * 4);
    expect(u32Constants(debugWgsl).get('BOUNDS_EDGE_VERTICES')).toBe(BOUNDS_EDGE_VERTICES);
  });

  it('line kinds and vertices per segment', () => {
    const c = u32Constants(debugWgsl);
    expect({ NORMALS: c.get('LINE_NORMALS'), TANGENTS: c.get('LINE_TANGENTS') }).toEqual(DebugLineKind);
    expect(c.get('LINE_SEGMENT_VERTICES')).toBe(LINE_SEGMENT_VERTICES);
    expect(c.get('SHAPE_SEGMENT_VERTICES')).toBe(SHAPE_SEGMENT_VERTICES);
  });

  it('the overlays add no bindings of their own: they use the mesh shader\'s groups 0 and 1', () => {
    expect(debugWgsl).not.toMatch(/@group/);
    expect(DEBUG_SHADER_SOURCE).toContain(meshWgsl);
    expect(DEBUG_SHADER_SOURCE).toContain(debugWgsl);
  });
});

describe('wireframeIndices', () => {
  it('lists each edge of a triangle list once, shared edges included', () => {
    // A quad as two triangles sharing the diagonal 0–2: 5 edges.
    const edges = wireframeIndices(Uint16Array.of(0, 1, 2, 0, 2, 3), 4, 'triangle-list');
    const pairs = [];
    for (let i = 0; i < edges.length; i += 2) pairs.push(`${edges[i]}-${edges[i + 1]}`);
    expect(pairs.sort()).toEqual(['0-1', '0-2', '0-3', '1-2', '2-3']);
    expect(edges).toBeInstanceOf(Uint16Array);
  });

  it('handles strips, non-indexed lists, degenerate triangles and wide indices', () => {
    // Strip 0 1 2 3: triangles 012, 123 → edges 01 12 02 23 13.
    expect(wireframeIndices(undefined, 4, 'triangle-strip').length).toBe(10);
    expect(wireframeIndices(undefined, 6, 'triangle-list').length).toBe(12);
    // A strip restart written as repeated indices gives zero-length edges, which are dropped.
    expect(wireframeIndices(Uint16Array.of(0, 1, 1, 2), 3, 'triangle-strip').length).toBe(4);
    expect(wireframeIndices(Uint32Array.of(0, 70000, 70001), 70002, 'triangle-list')).toBeInstanceOf(Uint32Array);
  });
});

describe('skeletonJointRecords', () => {
  it('each joint at its bind position (the inverse of its inverse bind matrix), with its parent joint', async () => {
    for (const childrenFirst of [false, true]) {
      const model = await loadGltf(buildChain({ childrenFirst }), { name: 'chain' });
      const skin = model.skins[0];
      const { bytes, count } = skeletonJointRecords(skin);
      expect(count).toBe(4);
      expect(bytes.byteLength).toBe(4 * SKELETON_JOINT_STRIDE);
      const f32 = new Float32Array(bytes), u32 = new Uint32Array(bytes), i32 = new Int32Array(bytes);
      for (let r = 0; r < count; r++) {
        const base = (r * SKELETON_JOINT_STRIDE) / 4;
        const joint = u32[base + SkeletonJointOffset.JOINT / 4];
        const parent = i32[base + SkeletonJointOffset.PARENT_JOINT / 4];
        // Joint node "J<n>" sits at y = 0.5 n; its parent is J<n-1>.
        const n = Number(model.nodes[skin.joints[joint]].name!.slice(1));
        expect(Array.from(f32.subarray(base, base + 3), (x) => x + 0)).toEqual([0, 0.5 * n, 0]);
        if (n === 0) {
          expect(parent).toBe(-1);
        } else {
          expect(model.nodes[skin.joints[parent]].name).toBe(`J${n - 1}`);
          const p = base + SkeletonJointOffset.PARENT_BIND_POSITION / 4;
          expect(Array.from(f32.subarray(p, p + 3), (x) => x + 0)).toEqual([0, 0.5 * (n - 1), 0]);
        }
      }
    }
  });
});

const device = await testDevice();

describe.skipIf(!device)('the debug overlay shader compiles (Dawn)', () => {
  it('without errors or warnings', async () => {
    const gpu = device!;
    const info = await expectNoGpuErrors(gpu, () => gpu.createShaderModule({ label: 'mesh debug (compile check)', code: DEBUG_SHADER_SOURCE }).getCompilationInfo());
    expect(info.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`)).toEqual([]);
  });
});
