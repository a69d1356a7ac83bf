import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bakeModel, type BakeResult } from '../../src/bake/bake.ts';
import { bakeModelGpu } from '../../src/bake/gpu-bake.ts';
import { skinDqPalette } from '../../src/anim/dq-palette.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { createNodeDevice } from '../../src/gpu/device/node-device.ts';
import { PRESKIN_WORKGROUP_SIZE } from '../../src/gpu/draw/preskin.ts';
import { createSkinnedVertices } from '../../src/skin/cpu-skin.ts';
import { skinPrimitiveDq } from '../../src/skin/dqs.ts';
import { assetPath } from '../support/assets.ts';
import { buildChain, type ChainOptions } from '../support/fixtures.ts';
import { runBuiltBake } from '../support/bake-cli.ts';
import { useTestDevice } from '../support/webgpu.ts';
import { bakeErrorTable, compareBakes, describeGpuBakeOnSharedAssets, diagonal, noErrors, POSITION_TOLERANCE } from '../support/compare-bakes.ts';

const gpu = useTestDevice('gpu-bake tests');


const measured = bakeErrorTable('GPU vs CPU bake');
describeGpuBakeOnSharedAssets('bakeModelGpu matches bakeModel on every shared asset', gpu, {}, measured);

describe('bakeModelGpu matches bakeModel on the code-built chain', () => {
  const cases: [string, ChainOptions][] = [
    ['4 influences, float weights', {}],
    ['8 influences', { eightInfluences: true }],
    ['u8 joints', { joints: 'u8' }],
    ['u8 weights', { weights: 'u8' }],
    ['u16 weights', { weights: 'u16' }],
    ['tangents', { tangents: true }],
    ['non-uniform scale', { nonUniformScale: true, tangents: true }],
    ['CUBICSPLINE', { interpolation: 'CUBICSPLINE', nonUniformScale: true }],
    ['STEP', { interpolation: 'STEP' }],
    ['children-first joints', { childrenFirst: true }],
    ['transformed mesh node', { transformedMeshNode: true }],
    ['interleaved', { interleaved: true }],
    ['sparse positions', { sparsePositions: true }],
    ['everything at once', {
      eightInfluences: true, joints: 'u8', weights: 'u16', tangents: true, nonUniformScale: true,
      interpolation: 'CUBICSPLINE', childrenFirst: true, transformedMeshNode: true,
    }],
  ];
  for (const [name, options] of cases) {
    it(name, async (ctx) => {
      const device = gpu.device(ctx);
      const model = await loadGltf(buildChain(options), { name: `chain: ${name}` });
      expect(model.meshes[0].primitives[0].influences).toBe(options.eightInfluences ? 8 : 4);
      const errors = noErrors();
      for (const time of [0, 0.4, 1.3, 2]) {
        compareBakes(bakeModel(model, { time }), await bakeModelGpu(device, model, { time }), `${name} t=${time}`, errors);
      }
      measured.set(`chain: ${name}`, errors);
    });
  }
});

describe('bakeModelGpu (dual-quaternion) under a non-uniformly scaled mesh node', () => {
  // The bake splits world skinning matrices into dual quaternions, as bakeModel does; the
  // Renderer splits mesh-relative ones and draws the result with the mesh node's matrix.
  // Under a non-uniformly scaled mesh node the two blends differ, and the bake keeps bakeModel's.
  it("equals the CPU bake within tolerance, where the Renderer's mesh-relative split would not", async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltf(buildChain({ transformedMeshNode: true, tangents: true }), { name: 'chain: non-uniformly scaled mesh node' });
    const meshNode = model.meshNodes.find((mn) => mn.skin >= 0)!;
    const slot = model.hierarchy.slotOf[meshNode.node];
    const skin = model.skins[meshNode.skin];
    const prim = model.meshes[meshNode.mesh].primitives[0];
    const errors = noErrors();
    for (const time of [0.4, 1.3, 2]) {
      const options = { skinning: 'dual-quaternion', time } as const;
      const cpu = bakeModel(model, options);
      const m = cpu.nodeMatrices.subarray(slot * 16, slot * 16 + 16);
      const axes = [0, 4, 8].map((c) => Math.hypot(m[c], m[c + 1], m[c + 2]));
      expect(Math.max(...axes) / Math.min(...axes), 'the mesh node is scaled non-uniformly').toBeGreaterThan(1.5);
      compareBakes(cpu, await bakeModelGpu(device, model, options), `non-uniformly scaled mesh node t=${time}`, errors);

      // The Renderer's route, on the CPU: a mesh-relative DQ palette, then the mesh node's matrix.
      const n = skin.joints.length * 16;
      const relative = skinDqPalette(skin, cpu.nodeMatrices, slot, new Float64Array(n), 0, new Float64Array(n));
      const local = skinPrimitiveDq(prim, relative, createSkinnedVertices(prim, 'float64')).positions;
      const scale = diagonal(cpu.primitives[0].positions);
      let apart = 0;
      for (let v = 0; v < prim.vertexCount; v++) {
        const [x, y, z] = [local[v * 3], local[v * 3 + 1], local[v * 3 + 2]];
        for (let r = 0; r < 3; r++) {
          const world = m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r];
          apart = Math.max(apart, Math.abs(world - cpu.primitives[0].positions[v * 3 + r]) / scale);
        }
      }
      expect(apart, `t=${time}: the mesh-relative split is far from the world one, so this fixture tells them apart`).toBeGreaterThan(100 * POSITION_TOLERANCE);
    }
    measured.set('chain: DQ, non-uniformly scaled mesh node', errors);
  });
});

describe('bakeModelGpu: submissions, batching, errors', () => {
  /**
   * The device with its queue's submit and writeBuffer counted and, optionally, smaller
   * limits (a storage-buffer binding limit forces several batches, a workgroup limit a grid
   * that continues along z). Methods stay bound to the real objects, so Dawn sees its own `this`.
   */
  function instrumented(device: GPUDevice, lower: Partial<Record<'maxStorageBufferBindingSize' | 'maxComputeWorkgroupsPerDimension', number>> = {}) {
    const calls = { submit: 0, writeBuffer: [] as number[], bindGroups: 0 };
    const queue = new Proxy(device.queue, {
      get(target, key) {
        if (key === 'submit') return (buffers: GPUCommandBuffer[]) => { calls.submit++; target.submit(buffers); };
        if (key === 'writeBuffer') {
          return (buffer: GPUBuffer, offset: number, data: BufferSource, ...rest: number[]) => {
            calls.writeBuffer.push(data.byteLength);
            target.writeBuffer(buffer, offset, data as GPUAllowSharedBufferSource, ...rest);
          };
        }
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const limits = new Proxy(device.limits, {
      get: (target, key) => (typeof key === 'string' && key in lower ? lower[key as keyof typeof lower] : Reflect.get(target, key, target)),
    });
    const proxy = new Proxy(device, {
      get(target, key) {
        if (key === 'queue') return queue;
        if (key === 'limits') return limits;
        if (key === 'createBindGroup') return (d: GPUBindGroupDescriptor) => { calls.bindGroups++; return target.createBindGroup(d); };
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    return { device: proxy, calls };
  }

  it('RecursiveSkeletons (84 skinned nodes): one submission, all palettes in one writeBuffer', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltfFile(assetPath('RecursiveSkeletons'));
    const { device: counted, calls } = instrumented(device);
    const result = await bakeModelGpu(counted, model, { time: 1 });
    expect(result.primitives).toHaveLength(84);
    expect(calls.submit).toBe(1);
    const jointMatrices = model.skins.reduce((n, s) => n + s.joints.length, 0);
    // Two writes in all: the palettes (every skin's matrices) and the draw records (one per skinned primitive).
    expect(calls.writeBuffer).toHaveLength(2);
    expect(calls.writeBuffer).toContain(jointMatrices * 64);
    expect(calls.bindGroups).toBe(1); // one batch: the shared mesh's vertices uploaded once
    compareBakes(bakeModel(model, { time: 1 }), result, 'RecursiveSkeletons t=1');
  });

  it('splits into several batches when a buffer would exceed the binding limit, still one submission', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltfFile(assetPath('RobotExpressive'));
    // Each of its 4 skinned primitives needs ≤ 14.3 KB of output (298 vertices × 48 bytes); 16 KB forces one batch each.
    const { device: small, calls } = instrumented(device, { maxStorageBufferBindingSize: 16384 });
    const result = await bakeModelGpu(small, model, { animation: 2, time: 0.5 });
    expect(calls.submit).toBe(1);
    expect(calls.bindGroups).toBe(4);
    compareBakes(bakeModel(model, { animation: 2, time: 0.5 }), result, 'RobotExpressive in small batches');

    // 6000 bytes hold the palettes (86 matrices, 5504 bytes) but no primitive's output.
    const { device: tiny } = instrumented(device, { maxStorageBufferBindingSize: 6000 });
    await expect(bakeModelGpu(tiny, model, { animation: 2, time: 0.5 })).rejects.toThrow(/vertices\) exceeds the device's 6000-byte storage buffer limit/);
    const { device: tinier } = instrumented(device, { maxStorageBufferBindingSize: 1024 });
    await expect(bakeModelGpu(tinier, model, { animation: 2, time: 0.5 })).rejects.toThrow(/86 joint matrices exceed the device's 1024-byte/);
  });

  it('a primitive with more workgroups than one dimension allows is skinned in a grid that continues along z', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltfFile(assetPath('CesiumMan'));
    const vertices = model.meshes[model.meshNodes.find((mn) => mn.skin >= 0)!.mesh].primitives[0].vertexCount;
    const { device: narrow } = instrumented(device, { maxComputeWorkgroupsPerDimension: 8 });
    expect(Math.ceil(vertices / PRESKIN_WORKGROUP_SIZE)).toBeGreaterThan(8 * 2);
    compareBakes(bakeModel(model, { time: 1 }), await bakeModelGpu(narrow, model, { time: 1 }), 'CesiumMan, 8 workgroups per dimension');
  });

  it('a model without skins bakes to no primitives; bad options fail like bakeModel', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltfFile(assetPath('InterpolationTest'));
    const result = await bakeModelGpu(device, model, { animation: 3, time: 1 });
    expect(result.primitives).toEqual([]);
    expect(result.nodeMatrices).toEqual(bakeModel(model, { animation: 3, time: 1 }).nodeMatrices);
    await expect(bakeModelGpu(device, model, { animation: 'nope' })).rejects.toThrow(/animation "nope" not found/);
    await expect(bakeModelGpu(device, model, { time: NaN })).rejects.toThrow(/not a finite number/);
  });

  it('a destroyed device reports lost with reason "destroyed", so nothing keeps the process alive', async (ctx) => {
    gpu.device(ctx);
    const device = await createNodeDevice({ label: 'short-lived' });
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    await bakeModelGpu(device, model, { time: 0.5 });
    device.destroy();
    const info = await device.lost;
    expect(info.reason).toBe('destroyed');
    await expect(bakeModelGpu(device, model, { time: 0.5 })).rejects.toThrow();
  });
});

describe('bake CLI --backend', () => {
  const root = resolve(import.meta.dirname, '../..');
  const tmp = mkdtempSync(join(tmpdir(), 'gpu-bake-cli-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /** The built command (bake-cli.test.ts pins that it is `npm run bake`), run from the repository's root. */
  const bake = (args: string[], env: Record<string, string> = {}) => runBuiltBake(args, root, env);
  /** The CLI's own lines on stderr (Dawn and the Vulkan loader print theirs too). */
  const bakeLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('bake:'));

  it('--backend gpu writes the same JSON as --backend cpu (within tolerance); bad backend and no GPU exit 1 with one line', async (ctx) => {
    gpu.device(ctx);
    const input = assetPath('SimpleSkin');
    const cpuOut = join(tmp, 'cpu.json'), gpuOut = join(tmp, 'gpu.json');
    const [cpuRun, gpuRun, badBackend, noGpu] = await Promise.all([
      bake([input, '--time', '0.7', '--out', cpuOut, '--backend', 'cpu']),
      bake([input, '--time', '0.7', '--out', gpuOut, '--backend', 'gpu']),
      bake([input, '--backend', 'tpu']),
      // Pointing the Vulkan loader at no driver is how a machine without one looks.
      bake([input, '--backend', 'gpu', '--out', join(tmp, 'never.json')], { VK_ICD_FILENAMES: join(tmp, 'no-such-icd.json'), VK_DRIVER_FILES: '' }),
    ]);
    expect(cpuRun.code, cpuRun.stderr).toBe(0);
    expect(gpuRun.code, gpuRun.stderr).toBe(0);
    const cpu = JSON.parse(readFileSync(cpuOut, 'utf8'));
    const gpuJson = JSON.parse(readFileSync(gpuOut, 'utf8'));
    const { primitives: cpuPrims, ...cpuHeader } = cpu;
    const { primitives: gpuPrims, ...gpuHeader } = gpuJson;
    expect(gpuHeader).toEqual(cpuHeader);
    expect(gpuPrims).toHaveLength(cpuPrims.length);
    const toResult = (json: typeof cpu): BakeResult => ({
      ...json,
      nodeMatrices: new Float64Array(0),
      primitives: json.primitives.map((p: Record<string, number[] | number>) => ({
        node: p.node, mesh: p.mesh, primitive: p.primitive, vertexCount: p.vertexCount,
        positions: Float64Array.from(p.POSITION as number[]),
        normals: p.NORMAL ? Float64Array.from(p.NORMAL as number[]) : undefined,
        tangents: p.TANGENT ? Float64Array.from(p.TANGENT as number[]) : undefined,
      })),
    });
    compareBakes(toResult(cpu), toResult(gpuJson), 'CLI SimpleSkin t=0.7');

    expect(badBackend.code).toBe(1);
    expect(bakeLines(badBackend.stderr)).toEqual(['bake: --backend "tpu" must be cpu or gpu']);

    expect(noGpu.code).toBe(1);
    const lines = bakeLines(noGpu.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^bake: WebGPU unavailable: .*no-such-icd\.json, which does not exist$/);
    // The built command's frames would name skinned-mesh-bake.js, the sources' a .ts file.
    expect(noGpu.stderr, "no JavaScript stack trace").not.toMatch(/\.[jt]s:\d+:\d+/);
  });
});
