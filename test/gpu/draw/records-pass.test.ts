/**
 * Draw records written on the GPU (src/gpu/draw/records-pass.ts, shaders/records.wgsl) on Dawn
 * (SwiftShader): the WGSL layouts against the TS ones; which models they apply to; the
 * placement packing; and the records a GPU-culled crowd frame writes against the CPU's
 * (draw-record-writer.ts) — u32 fields equal, matrices within float32 rounding of a
 * float64 product — for several assets, with exact normals forced by a non-uniformly
 * scaled palette matrix and by the setting; and the active morph targets and weights taken
 * from a per-instance weight buffer or the rest weights, bit for bit the CPU's.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import recordsWgsl from '../../../shaders/records.wgsl?raw';
import { Crowd } from '../../../src/anim/crowd.ts';
import { createModelInstance } from '../../../src/anim/instance.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { DRAW_RECORD_SIZE, DRAW_RECORD_WORDS, DrawRecordWord, MAT3_COLUMN_WORDS } from '../../../src/gpu/layouts/draw-record.ts';
import { writeDrawRecords } from '../../../src/gpu/draw/draw-record-writer.ts';
import { movingMeshNodes } from '../../../src/anim/moving-mesh-nodes.ts';
import { gpuRecordsApply, packPlacementRows, packPlacementsCompact } from '../../../src/gpu/draw/records-pass.ts';
import { PLACEMENT_ROW_FLOATS, RECORD_DRAW_BYTES, RECORD_PARAMS_BYTES, RecordDrawWord, RecordParamsWord, RecordsBinding } from '../../../src/gpu/layouts/records.ts';
import type { GpuPaletteSource } from '../../../src/gpu/draw/palette-source.ts';
import { DrawFlag } from '../../../src/gpu/layouts/bindings.ts';
import { MAX_ACTIVE_MORPH_TARGETS } from '../../../src/gpu/model/morph-targets.ts';
import { buildMorphedSkin } from '../../support/fixtures.ts';
import { buildMorphRow } from '../fixtures.ts';
import type { ModelDraws } from '../../../src/gpu/draw/model-draws.ts';
import { measureAllocation } from '../../support/allocation.ts';
import { assetPath } from '../../support/assets.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice } from '../gpu-test.ts';
import { bindings, structLayout } from '../wgsl-layout.ts';

const snake = (s: string) => s.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

describe('records.wgsl ↔ layouts/records.ts', () => {
  it('bindings, struct offsets and sizes agree', () => {
    expect(Object.fromEntries([...bindings(recordsWgsl)].map(([name, b]) => [snake(name), b.binding]))).toEqual(RecordsBinding);
    const words = (name: string) => Object.fromEntries(structLayout(recordsWgsl, name).fields.filter((f) => !f.name.startsWith('_')).map((f) => [snake(f.name), f.offset / 4]));
    expect(words('RecordParams')).toEqual(RecordParamsWord);
    expect(Math.ceil(structLayout(recordsWgsl, 'RecordParams').size / 16) * 16).toBe(RECORD_PARAMS_BYTES);
    expect(words('RecordDraw')).toEqual(RecordDrawWord);
    expect(structLayout(recordsWgsl, 'RecordDraw').size).toBe(RECORD_DRAW_BYTES);
  });

  it('packs rows 0–2 of each placement with the translation made relative to the eye (identity without placements)', () => {
    const placements = Float64Array.from([1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 1000.5, 2000.25, -3000.125, 1]);
    const out = new Float32Array(2 * PLACEMENT_ROW_FLOATS);
    packPlacementRows(placements, 1, [1000, 2000, -3000], out);
    expect([...out.subarray(0, 12)]).toEqual([1, 4, 7, 0.5, 2, 5, 8, 0.25, 3, 6, 9, -0.125]);
    packPlacementRows(undefined, 2, [1, 2, 3], out);
    expect([...out.subarray(12, 24)]).toEqual([1, 0, 0, -1, 0, 1, 0, -2, 0, 0, 1, -3]);
  });

  it('packs similarity placements as quaternion, translation and scale (mirrors too); anything else is refused', () => {
    const out = new Float32Array(8 * 4);
    /** The matrix the shader builds from a compact entry. */
    const unpack = (o: number) => {
      const [x, y, z, w, tx, ty, tz, s] = out.subarray(o, o + 8);
      return [
        (1 - 2 * (y * y + z * z)) * s, 2 * (x * y + z * w) * s, 2 * (x * z - y * w) * s, 0,
        2 * (x * y - z * w) * s, (1 - 2 * (x * x + z * z)) * s, 2 * (y * z + x * w) * s, 0,
        2 * (x * z + y * w) * s, 2 * (y * z - x * w) * s, (1 - 2 * (x * x + y * y)) * s, 0,
        tx, ty, tz, 1,
      ];
    };
    const eye = [100, 200, 300];
    const rotation = (axis: number[], angle: number, scale: number, t: number[]): number[] => {
      const [ax, ay, az] = axis.map((v) => v / Math.hypot(...axis));
      const c = Math.cos(angle), s = Math.sin(angle), C = 1 - c;
      return [
        (c + ax * ax * C) * scale, (ay * ax * C + az * s) * scale, (az * ax * C - ay * s) * scale, 0,
        (ax * ay * C - az * s) * scale, (c + ay * ay * C) * scale, (az * ay * C + ax * s) * scale, 0,
        (ax * az * C + ay * s) * scale, (ay * az * C - ax * s) * scale, (c + az * az * C) * scale, 0,
        t[0], t[1], t[2], 1,
      ];
    };
    const mirror = rotation([0, 1, 0], 0.3, 1, [1, 2, 3]).map((v, i) => (i < 3 ? -v : v));
    // Each branch of the quaternion extraction: trace > 0, and each axis largest.
    const similar = [rotation([0, 1, 0], 0.7, 2, [101, 202, 303]), rotation([1, 0, 0], 3.1, 1, [0, 0, 0]), rotation([0, 1, 0], 3.1, 0.5, [5, 0, 0]), rotation([1, 1, 4], 3.0, 1.5, [0, 7, 0])];
    for (const m of [...similar, mirror]) {
      expect(packPlacementsCompact(Float64Array.from(m), 1, eye, out)).toBe(true);
      const back = unpack(0);
      const expected = m.map((v, i) => (i >= 12 && i < 15 ? v - eye[i - 12] : v));
      for (let i = 0; i < 16; i++) expect(back[i]).toBeCloseTo(expected[i], 5);
    }
    const stretched = rotation([0, 1, 0], 0.7, 1, [0, 0, 0]).map((v, i) => (i < 3 ? 1.5 * v : v));
    const sheared = [1, 0, 0, 0, 0.2, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    const projective = [1, 0, 0, 0.1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
    const collapsed = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    for (const m of [stretched, sheared, projective, collapsed]) expect(packPlacementsCompact(Float64Array.from(m), 1, eye, out)).toBe(false);
    // One stretched placement among similar ones sends the whole frame to the rows.
    expect(packPlacementsCompact(Float64Array.from([...similar[0], ...stretched]), 2, eye, out)).toBe(false);
    expect(packPlacementsCompact(undefined, 2, [1, 2, 3], out)).toBe(true);
    expect([...out.subarray(8, 16)]).toEqual([0, 0, 0, 1, -1, -2, -3, 1]);
  });

  it('packing a frame\'s placements allocates nothing', async () => {
    const n = 1000;
    const placements = new Float64Array(16 * n).map((_, i) => (i % 5) * 0.25);
    const eye = Float64Array.of(10, 20, 30);
    const out = new Float32Array(n * PLACEMENT_ROW_FLOATS);
    const yaw = new Float64Array(16 * n);
    for (let k = 0; k < n; k++) yaw.set([Math.cos(k), 0, -Math.sin(k), 0, 0, 1, 0, 0, Math.sin(k), 0, Math.cos(k), 0, k, 0, -k, 1], 16 * k);
    const { rounds, clean } = await measureAllocation(() => {
      packPlacementRows(placements, n, eye, out);
      packPlacementsCompact(yaw, n, eye, out);
    }, 200, 32 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});

const device = await testDevice();

/** float32 rounding of a float64 result, plus the float32 evaluation: a few ulps of the row's magnitude. */
function close(gpu: number, cpu: number, scale: number): boolean {
  return Math.abs(gpu - cpu) <= 8 * 2 ** -23 * Math.max(Math.abs(cpu), scale);
}

describe.skipIf(!device)('draw records written on the GPU (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, 64, 64);
  });
  afterAll(() => scene?.destroy());

  const draws = (): ModelDraws => (scene.renderer as unknown as { current: ModelDraws }).current;

  it('apply to every model without EXT_mesh_gpu_instancing draws; the mesh nodes clips move are found (morph weight clips move none)', async () => {
    const moving: Record<string, string> = {};
    for (const name of ['Fox', 'CesiumMan', 'RobotExpressive', 'SimpleMorph', 'InterpolationTest']) {
      const model = await loadModel(readFileSync(assetPath(name)), name);
      await scene.renderer.setModel(model);
      expect(gpuRecordsApply(draws().draws), name).toBe(true);
      moving[name] = `${movingMeshNodes(model).length} of ${model.meshNodes.length}`;
    }
    // RobotExpressive: meshes parented to bones; InterpolationTest: each cube's node but one is animated.
    expect(moving).toEqual({ Fox: '0 of 1', CesiumMan: '0 of 1', RobotExpressive: '12 of 14', SimpleMorph: '0 of 1', InterpolationTest: '9 of 10' });
    const instanced = { ...draws().draws[0], instanceMatrices: new Float64Array(16) };
    expect(gpuRecordsApply([draws().draws[0], instanced])).toBe(false);
  });

  async function readRecords(buffer: GPUBuffer, bytes: number): Promise<ArrayBuffer> {
    const copy = gpu.createBuffer({ label: 'test records readback', size: bytes, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = gpu.createCommandEncoder();
    encoder.copyBufferToBuffer(buffer, 0, copy, 0, bytes);
    gpu.queue.submit([encoder.finish()]);
    await copy.mapAsync(GPUMapMode.READ);
    const out = copy.getMappedRange().slice(0);
    copy.destroy();
    return out;
  }

  /**
   * Compares the GPU's records (`gpu`) with the CPU writer's in `d.records`: u32 fields equal,
   * morph targets and weights bit for bit where the flags apply morphs, matrices within float32
   * rounding. Returns how many records have exact normals.
   */
  function expectRecordsMatch(gpuRecords: ArrayBuffer, d: ModelDraws, n: number): number {
    const gf = new Float32Array(gpuRecords), gu = new Uint32Array(gpuRecords);
    const cf = d.records.f32, cu = d.records.u32;
    let exactDraws = 0;
    for (let rec = 0; rec < d.draws.length * n; rec++) {
      const b = rec * DRAW_RECORD_WORDS;
      for (const w of [DrawRecordWord.PALETTE_OFFSET, DrawRecordWord.FLAGS, DrawRecordWord.SKINNED_BASE]) {
        expect(gu[b + w], `record ${rec} word ${w}`).toBe(cu[b + w]);
      }
      const flags = gu[b + DrawRecordWord.FLAGS];
      if (flags & DrawFlag.EXACT_NORMALS) exactDraws++;
      if (flags & (DrawFlag.MORPH_POSITIONS | DrawFlag.MORPH_NORMALS | DrawFlag.MORPH_TANGENTS)) {
        const words = [DrawRecordWord.MORPH_BASE, DrawRecordWord.MORPH_TARGET_COUNT];
        for (let t = 0; t < 4; t++) words.push(DrawRecordWord.MORPH_WEIGHTS_0 + t, DrawRecordWord.MORPH_WEIGHTS_1 + t, DrawRecordWord.MORPH_TARGETS + t);
        for (const w of words) expect(gu[b + w], `record ${rec} morph word ${w}`).toBe(cu[b + w]);
      }
      for (let col = 0; col < 4; col++) {
        const scale = Math.max(...[0, 1, 2, 3].map((row) => Math.abs(cf[b + DrawRecordWord.MODEL + col * 4 + row])));
        for (let row = 0; row < 4; row++) {
          const i = b + DrawRecordWord.MODEL + col * 4 + row;
          expect(close(gf[i], cf[i], scale), `record ${rec} model[${col}][${row}] ${gf[i]} vs ${cf[i]}`).toBe(true);
        }
      }
      for (let col = 0; col < 3; col++) {
        const base = b + DrawRecordWord.NORMAL_MATRIX + col * MAT3_COLUMN_WORDS;
        const scale = Math.max(Math.abs(cf[base]), Math.abs(cf[base + 1]), Math.abs(cf[base + 2]));
        for (let row = 0; row < 3; row++) expect(close(gf[base + row], cf[base + row], scale), `record ${rec} normal[${col}][${row}]`).toBe(true);
      }
    }
    return exactDraws;
  }

  for (const asset of ['Fox', 'CesiumMan', 'RiggedFigure']) {
    it(`${asset}: a GPU-culled crowd frame's records are the CPU writer's (u32 fields equal, matrices within float32 rounding)`, async () => {
      const model: Model = await loadModel(readFileSync(assetPath(asset)), asset);
      await expectNoGpuErrors(gpu, async () => {
        const r = scene.renderer;
        await r.setModel(model);
        expect(await r.prepareGpuCulling()).toBe(true);
        const n = 12;
        const crowd = new Crowd(model, n);
        const size = computeInstanceBounds(createModelInstance(model)).radius;
        // Far from the origin and turned: the camera-relative subtraction matters.
        for (let k = 0; k < n; k++) crowd.setPlacement(k, 5000 + (k % 4) * size, 0.1 * k, -3000 + Math.floor(k / 4) * size, 0.4 * k);
        for (let k = 0; k < n; k++) crowd.play(k, 0, 0.1 * k);
        crowd.update(0.2);
        // Instance 3: its first palette matrix stretched along x, so its skinned draws need exact normals.
        const p = crowd.palettes, o = 3 * crowd.paletteMatrices * 16;
        for (let c = 0; c < 3; c++) p[o + c] *= 1.5;
        const palettes = gpu.createBuffer({ label: 'test palettes', size: p.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
        gpu.queue.writeBuffer(palettes, 0, p);
        const cam = scene.camera;
        cam.target.set([5000, 0, -3000]);
        cam.distance = 6 * size;
        cam.near = size / 100;
        cam.far = 100 * size;
        // Crowd placements (yaw and translation) travel as quaternions; stretched ones as rows.
        for (const [exact, stretched] of [[false, false], [true, false], [false, true]] as const) {
          if (stretched) for (let k = 0; k < n; k++) for (let c = 0; c < 3; c++) crowd.placements[k * 16 + c] *= 1.5;
          r.settings.normals = exact ? 'exact' : 'fast-when-uniform';
          let written = 0;
          const queue = gpu.queue as unknown as Record<string, unknown>;
          const original = queue.writeBuffer as (...a: unknown[]) => unknown;
          queue.writeBuffer = (...args: unknown[]) => {
            if ((args[0] as GPUBuffer).label.includes('placements')) written += args[4] as number;
            return original.apply(gpu.queue, args);
          };
          try {
            r.renderInstances(scene.target, cam, crowd.instances, n, crowd.placements, { palettes });
          } finally {
            queue.writeBuffer = original;
          }
          expect(written).toBe(n * (stretched ? 48 : 32));
          const d = draws();
          const bytes = d.draws.length * n * DRAW_RECORD_SIZE;
          const gpuRecords = await readRecords(d.drawBuffer, bytes);
          // The CPU writer's records of the same frame (the renderer wrote none: they are the GPU's).
          writeDrawRecords(d, crowd.instances, n, crowd.placements, cam.eye, undefined, exact);
          const exactDraws = expectRecordsMatch(gpuRecords, d, n);
          const skinnedDraws = d.draws.filter((x) => x.skinned).length;
          // Without the setting only instance 3's skinned draws (the flag reads palettes, not placements); with it every skinned draw.
          expect(exactDraws).toBe(exact ? skinnedDraws * n : skinnedDraws);
        }
        r.settings.normals = 'fast-when-uniform';
        await gpu.queue.onSubmittedWorkDone();
        palettes.destroy();
      });
    });
  }
  /** Renders `instances` with GPU palettes `source` and returns the bytes written to records and placements. */
  function renderCounting(instances: ReturnType<typeof createModelInstance>[], placements: Float64Array, source: GpuPaletteSource): { records: number; placements: number } {
    const written = { records: 0, placements: 0 };
    const queue = gpu.queue as unknown as Record<string, unknown>;
    const original = queue.writeBuffer as (...a: unknown[]) => unknown;
    queue.writeBuffer = (...args: unknown[]) => {
      const label = (args[0] as GPUBuffer).label;
      if (label.includes('placements')) written.placements += args[4] as number;
      if (label.includes('draw records')) written.records += args[4] as number;
      return original.apply(gpu.queue, args);
    };
    try {
      scene.renderer.renderInstances(scene.target, scene.camera, instances, instances.length, placements, source);
    } finally {
      queue.writeBuffer = original;
    }
    return written;
  }

  function rowPlacements(n: number, step: number): Float64Array {
    const placements = new Float64Array(16 * n);
    for (let k = 0; k < n; k++) placements.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 300 + step * (k % 4), 0, -200 + step * Math.floor(k / 4), 1], 16 * k);
    return placements;
  }

  it('morph targets and weights from a per-instance weight buffer are the CPU\'s choice bit for bit: more than eight, ties, negative, NaN, none', async () => {
    const targets = 10;
    const model = await loadModel(buildMorphRow(new Array(targets).fill(0.25)), 'morph row');
    await expectNoGpuErrors(gpu, async () => {
      const r = scene.renderer;
      await r.setModel(model);
      expect(await r.prepareGpuCulling()).toBe(true);
      const patterns: number[][] = [
        new Array(targets).fill(0),
        [0.9, -0.1, 0.3, -0.75, 0.05, 0.6, -0.2, 0.45, 0.8, -0.35],
        [0.5, -0.5, 0.5, 0.25, 0.5, -0.5, 0.5, 0.5, 0.5, 0.5],
        [0.4, NaN, 0.1, 0, 0.3, 0, -0.2, NaN, 0.7, 0],
        [0, 0, 0.3, 0, 0, 0, 0, 0, -1.5, 0],
        [1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3, 8e-3, 9e-3, 1e-2],
      ];
      let seed = 7;
      const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
      for (let k = 0; k < 6; k++) patterns.push(Array.from({ length: targets }, (_, t) => ((k + t) % 3 === 0 ? 0 : random())));
      const n = patterns.length;
      const instances = patterns.map(() => createModelInstance(model));
      const stride = instances[0].pose.weights.length;
      expect(stride).toBe(targets);
      const weights = new Float32Array(n * stride);
      patterns.forEach((w, k) => { instances[k].pose.weights.set(w); weights.set(w, k * stride); });
      const morphWeights = gpu.createBuffer({ label: 'test morph weights', size: weights.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      gpu.queue.writeBuffer(morphWeights, 0, weights);
      // A rigid model reads no palette, but the passes bind an array of matrices: one at least, or a RangeError.
      const tooSmall = gpu.createBuffer({ label: 'test palettes (16 bytes)', size: 16, usage: GPUBufferUsage.STORAGE });
      expect(() => r.renderInstances(scene.target, scene.camera, instances, n, rowPlacements(n, 12), { palettes: tooSmall })).toThrow(/need 64 bytes of GPU palettes \(at least one matrix\), "test palettes \(16 bytes\)" holds 16/);
      tooSmall.destroy();
      const palettes = gpu.createBuffer({ label: 'test palettes (rigid)', size: 64, usage: GPUBufferUsage.STORAGE });
      const cam = scene.camera;
      cam.target.set([300, 0, -200]);
      cam.distance = 40;
      const placements = rowPlacements(n, 12);
      const written = renderCounting(instances, placements, { palettes, morphWeights });
      // Nothing per draw from the CPU: the records are the GPU's.
      expect(written).toEqual({ records: 0, placements: n * 32 });
      const d = draws();
      const gpuRecords = await readRecords(d.drawBuffer, d.draws.length * n * DRAW_RECORD_SIZE);
      d.records.u32.fill(0);
      writeDrawRecords(d, instances, n, placements, cam.eye, undefined, false);
      expectRecordsMatch(gpuRecords, d, n);
      const u = new Uint32Array(gpuRecords), f = new Float32Array(gpuRecords);
      const active = (k: number) => {
        const b = k * DRAW_RECORD_WORDS;
        if (!(u[b + DrawRecordWord.FLAGS] & DrawFlag.MORPH_POSITIONS)) return [];
        const out: [number, number][] = [];
        for (let t = 0; t < MAX_ACTIVE_MORPH_TARGETS; t++) {
          const w = f[b + (t < 4 ? DrawRecordWord.MORPH_WEIGHTS_0 + t : DrawRecordWord.MORPH_WEIGHTS_1 + t - 4)];
          if (w !== 0) out.push([(u[b + DrawRecordWord.MORPH_TARGETS + (t >> 1)] >>> (16 * (t & 1))) & 0xffff, w]);
        }
        return out;
      };
      // Spelled out for three of them (the comparison above holds the CPU's to the same).
      expect(active(0)).toEqual([]);
      expect(active(1).map(([t]) => t)).toEqual([0, 2, 3, 5, 6, 7, 8, 9]);
      expect(active(2).map(([t]) => t)).toEqual([0, 1, 2, 4, 5, 6, 7, 8]);
      expect(active(3)).toEqual([[0, Math.fround(0.4)], [2, Math.fround(0.1)], [4, Math.fround(0.3)], [6, Math.fround(-0.2)], [8, Math.fround(0.7)]]);
      await gpu.queue.onSubmittedWorkDone();
      morphWeights.destroy();
      palettes.destroy();
    });
  });

  it('without the source\'s weights: static morph targets take the rest weights on the GPU; animated ones have their records written on the CPU', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const r = scene.renderer;
      const cam = scene.camera;
      cam.target.set([300, 0, -200]);
      cam.distance = 40;
      const n = 8;
      const placements = rowPlacements(n, 3);
      // Static: the row's node weights, no clip.
      const row = await loadModel(buildMorphRow([0.5, 0, -0.25]), 'morph row');
      await r.setModel(row);
      expect(await r.prepareGpuCulling()).toBe(true);
      const palettes = gpu.createBuffer({ label: 'test palettes', size: 4096 * 64, usage: GPUBufferUsage.STORAGE });
      const rowInstances = Array.from({ length: n }, () => createModelInstance(row));
      expect(renderCounting(rowInstances, placements, { palettes })).toEqual({ records: 0, placements: n * 32 });
      let d = draws();
      const gpuRecords = await readRecords(d.drawBuffer, d.draws.length * n * DRAW_RECORD_SIZE);
      writeDrawRecords(d, rowInstances, n, placements, cam.eye, undefined, false);
      expectRecordsMatch(gpuRecords, d, n);
      expect(new Uint32Array(gpuRecords)[DrawRecordWord.FLAGS] & DrawFlag.MORPH_POSITIONS).toBeTruthy();
      // Animated: the morphed skin's clip moves its weights, which only the instances' poses (CPU) or a source buffer carry.
      const skin = await loadModel(buildMorphedSkin(), 'morphed skin');
      await r.setModel(skin);
      expect(await r.prepareGpuCulling()).toBe(true);
      const skinInstances = Array.from({ length: n }, () => createModelInstance(skin));
      const cpu = renderCounting(skinInstances, placements, { palettes });
      expect(cpu.records).toBe(draws().draws.length * n * DRAW_RECORD_SIZE);
      const stride = skinInstances[0].pose.weights.length;
      const morphWeights = gpu.createBuffer({ label: 'test morph weights', size: n * stride * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      const weights = new Float32Array(n * stride);
      for (let k = 0; k < n; k++) for (let t = 0; t < stride; t++) weights[k * stride + t] = skinInstances[k].pose.weights[t] = (k + 1) * 0.1 * (t + 1);
      gpu.queue.writeBuffer(morphWeights, 0, weights);
      expect(renderCounting(skinInstances, placements, { palettes, morphWeights })).toEqual({ records: 0, placements: n * 32 });
      d = draws();
      const skinRecords = await readRecords(d.drawBuffer, d.draws.length * n * DRAW_RECORD_SIZE);
      writeDrawRecords(d, skinInstances, n, placements, cam.eye, undefined, false);
      expectRecordsMatch(skinRecords, d, n);
      await gpu.queue.onSubmittedWorkDone();
      morphWeights.destroy();
      palettes.destroy();
    });
  });
  it('RobotExpressive (meshes on moving bones): records from per-instance mesh node matrices equal the CPU writer\'s; without them the CPU writes them', async () => {
    const model = await loadModel(readFileSync(assetPath('RobotExpressive')), 'RobotExpressive');
    await expectNoGpuErrors(gpu, async () => {
      const r = scene.renderer;
      await r.setModel(model);
      expect(await r.prepareGpuCulling()).toBe(true);
      const n = 6;
      const crowd = new Crowd(model, n);
      const size = computeInstanceBounds(createModelInstance(model)).radius;
      for (let k = 0; k < n; k++) crowd.setPlacement(k, 300 + k * size, 0, -200, 0.3 * k);
      for (let k = 0; k < n; k++) crowd.play(k, k % model.animations.length, 0.17 * k);
      crowd.update(0.25);
      const palettes = gpu.createBuffer({ label: 'test palettes', size: crowd.palettes.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      gpu.queue.writeBuffer(palettes, 0, crowd.palettes);
      const cam = scene.camera;
      cam.target.set([300 + 2.5 * size, 0, -200]);
      cam.distance = 6 * size;
      const placements = Float64Array.from(crowd.placements.subarray(0, 16 * n));
      // Without the matrices the bones give each instance's meshes, the CPU writes every record.
      expect(renderCounting(crowd.instances.slice(0, n), placements, { palettes }).records).toBe(draws().draws.length * n * DRAW_RECORD_SIZE);
      // The mesh node matrices as a GPU evaluator lays them out: per instance, the moving mesh nodes in order.
      const moving = movingMeshNodes(model);
      const worlds = new Float32Array(n * moving.length * 16);
      for (let k = 0; k < n; k++) {
        moving.forEach((i, j) => {
          const slot = model.hierarchy.slotOf[model.meshNodes[i].node];
          worlds.set(crowd.instances[k].nodeMatrices.subarray(slot * 16, slot * 16 + 16), (k * moving.length + j) * 16);
        });
      }
      const meshWorlds = gpu.createBuffer({ label: 'test mesh node matrices', size: worlds.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      gpu.queue.writeBuffer(meshWorlds, 0, worlds);
      // RobotExpressive's face animates morph weights too: the source carries them as well.
      const stride = crowd.instances[0].pose.weights.length;
      const weights = new Float32Array(n * stride);
      for (let k = 0; k < n; k++) weights.set(crowd.instances[k].pose.weights, k * stride);
      const morphWeights = gpu.createBuffer({ label: 'test morph weights', size: Math.max(16, weights.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      gpu.queue.writeBuffer(morphWeights, 0, weights);
      expect(renderCounting(crowd.instances.slice(0, n), placements, { palettes, meshWorlds, morphWeights }).records).toBe(0);
      const d = draws();
      const gpuRecords = await readRecords(d.drawBuffer, d.draws.length * n * DRAW_RECORD_SIZE);
      writeDrawRecords(d, crowd.instances, n, placements, cam.eye, undefined, false);
      expectRecordsMatch(gpuRecords, d, n);
      // The meshes on bones really differ per instance: one moving draw's model matrix across instances.
      const dm = d.draws.findIndex((x) => moving.includes(x.meshNode));
      const f = new Float32Array(gpuRecords);
      const column = (k: number) => Array.from(f.subarray((dm * n + k) * DRAW_RECORD_WORDS + DrawRecordWord.MODEL, (dm * n + k) * DRAW_RECORD_WORDS + DrawRecordWord.MODEL + 3));
      expect(column(1)).not.toEqual(column(2));
      await gpu.queue.onSubmittedWorkDone();
      for (const b of [palettes, meshWorlds, morphWeights]) b.destroy();
    });
  });
});
