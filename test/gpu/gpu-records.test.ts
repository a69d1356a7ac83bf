/**
 * Draw records written on the GPU (src/gpu/gpu-records.ts, shaders/records.wgsl) on Dawn
 * (SwiftShader): the WGSL layouts against the TS ones; which models they apply to; the
 * placement packing; and the records a GPU-culled crowd frame writes against the CPU's
 * (draw-record-writer.ts) — u32 fields equal, matrices within float32 rounding of a
 * float64 product — for several assets, with exact normals forced by a non-uniformly
 * scaled palette matrix and by the setting.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import recordsWgsl from '../../shaders/records.wgsl?raw';
import { Crowd } from '../../src/anim/crowd.ts';
import { createModelInstance } from '../../src/anim/instance.ts';
import type { Model } from '../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../src/gpu/bounds.ts';
import { DRAW_RECORD_SIZE, DRAW_RECORD_WORDS, DrawRecordWord, MAT3_COLUMN_WORDS } from '../../src/gpu/draw-record.ts';
import { writeDrawRecords } from '../../src/gpu/draw-record-writer.ts';
import { gpuRecordsApply, packPlacementRows, packPlacementsCompact } from '../../src/gpu/gpu-records.ts';
import { PLACEMENT_ROW_FLOATS, RECORD_DRAW_BYTES, RECORD_PARAMS_BYTES, RecordDrawWord, RecordParamsWord, RecordsBinding } from '../../src/gpu/gpu-records-layout.ts';
import { DrawFlag } from '../../src/gpu/layouts.ts';
import type { ModelDraws } from '../../src/gpu/model-draws.ts';
import { measureAllocation } from '../support/allocation.ts';
import { assetPath } from '../support/assets.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice } from './gpu-test.ts';
import { bindings, structLayout } from './wgsl-layout.ts';

const snake = (s: string) => s.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

describe('records.wgsl ↔ gpu-records-layout.ts', () => {
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

  it('apply to models whose mesh nodes no clip moves and that have no morph targets', async () => {
    const verdicts: Record<string, boolean> = {};
    for (const name of ['Fox', 'CesiumMan', 'RobotExpressive', 'SimpleMorph', 'InterpolationTest']) {
      const model = await loadModel(readFileSync(assetPath(name)), name);
      await scene.renderer.setModel(model);
      verdicts[name] = gpuRecordsApply(model, draws().draws);
    }
    // RobotExpressive: morph targets and meshes parented to bones; SimpleMorph: morph targets; InterpolationTest: animated mesh nodes.
    expect(verdicts).toEqual({ Fox: true, CesiumMan: true, RobotExpressive: false, SimpleMorph: false, InterpolationTest: false });
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
          const gf = new Float32Array(gpuRecords), gu = new Uint32Array(gpuRecords);
          const cf = d.records.f32, cu = d.records.u32;
          let exactDraws = 0;
          for (let rec = 0; rec < d.draws.length * n; rec++) {
            const b = rec * DRAW_RECORD_WORDS;
            for (const w of [DrawRecordWord.PALETTE_OFFSET, DrawRecordWord.FLAGS, DrawRecordWord.SKINNED_BASE, DrawRecordWord.MORPH_BASE, DrawRecordWord.MORPH_TARGET_COUNT]) {
              expect(gu[b + w], `record ${rec} word ${w}`).toBe(cu[b + w]);
            }
            if (gu[b + DrawRecordWord.FLAGS] & DrawFlag.EXACT_NORMALS) exactDraws++;
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
});
