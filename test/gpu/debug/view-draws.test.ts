/**
 * The debug views' background builds (src/gpu/debug/view-draws.ts DebugViewDraws), with stand-in
 * pipeline caches: each view of each skinning method is one BackgroundBuild, so a frame asking every
 * frame starts it once, its bit turns ready when it arrives, a failure is reported once by the view's
 * name and kept (not rebuilt each frame), and a build that arrives after `destroy` marks nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Model } from '../../../src/gltf/model.ts';
import { DebugViewDraws, type DebugDrawSource, type DebugViewContext } from '../../../src/gpu/debug/view-draws.ts';
import { DebugView } from '../../../src/gpu/debug/views.ts';
import type { DebugPipelines } from '../../../src/gpu/pipelines/debug.ts';
import type { MeshPipelineDesc, MeshPipelines } from '../../../src/gpu/pipelines/mesh.ts';
import type { GpuPrimitive } from '../../../src/gpu/model/upload.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Stand-in pipeline caches whose every pipeline the test resolves or rejects; counts what was asked. */
function standIns() {
  const pending: { what: string; resolve: (p: GPURenderPipeline) => void; reject: (e: unknown) => void }[] = [];
  const ask = (what: string) => new Promise<GPURenderPipeline>((resolve, reject) => { pending.push({ what, resolve, reject }); });
  const meshPipelines = { pipeline: (desc: MeshPipelineDesc) => ask(`mesh ${desc.variant} ${desc.skinning}`) } as unknown as MeshPipelines;
  const debugPipelines = {
    lines: (key: { kind: number; skinning: string }) => ask(`lines ${key.kind} ${key.skinning}`),
    skeleton: (shape: string) => ask(`skeleton ${shape}`),
  } as unknown as DebugPipelines;
  const ctx: DebugViewContext = { device: {} as GPUDevice, label: 'test', format: 'rgba8unorm', meshPipelines, debugPipelines };
  const primitive = { hasNormals: true, hasTangents: false, vertexCount: 3, topology: 'point-list' } as unknown as GpuPrimitive;
  const desc = { vertexLayoutKey: 'k', vertexLayouts: [], influences: 4 } as unknown as MeshPipelineDesc;
  const draws: DebugDrawSource[] = [0, 1].map((i) => ({ meshNode: i, primitiveIndex: 0, primitive, desc, vertexSlots: 1 }));
  const views = new DebugViewDraws(ctx, {} as Model, draws);
  /** Resolves (or rejects) every pipeline asked for so far, until nothing more is asked. */
  const release = async (fail?: (what: string) => boolean) => {
    for (let round = 0; round < 10 && pending.length > 0; round++) {
      for (const p of pending.splice(0)) {
        if (fail?.(p.what)) p.reject(new Error(`no ${p.what}`));
        else p.resolve({ label: p.what } as GPURenderPipeline);
      }
      await settle();
    }
  };
  return { views, pending, release };
}

describe('DebugViewDraws builds each view in the background', () => {
  it('a frame asking every frame starts each view once; its bit is ready once it arrives, per skinning method', async () => {
    const { views, pending, release } = standIns();
    const failures: string[] = [];
    const onFailed = (what: string) => { failures.push(what); };
    const mask = DebugView.WEIGHTS | DebugView.NORMALS;
    for (let frame = 0; frame < 3; frame++) views.request(mask, 'linear', onFailed);
    // The weights view asks its draws one at a time (the mesh cache fills as each resolves).
    expect(pending.map((p) => p.what).sort()).toEqual([`lines 0 linear`, 'mesh weights linear']);
    expect(views.readyFor('linear')).toBe(0);
    await release();
    expect(views.readyFor('linear')).toBe(mask);
    expect(views.weightsPipelines('linear').map((p) => p.label)).toEqual(['mesh weights linear', 'mesh weights linear']);
    expect(views.readyFor('dual-quaternion')).toBe(0);
    views.request(mask, 'linear', onFailed);
    expect(pending).toEqual([]);
    // Another method's palette format: a build of its own.
    views.request(DebugView.WEIGHTS, 'dual-quaternion', onFailed);
    expect(pending.map((p) => p.what)).toEqual(['mesh weights dual-quaternion']);
    await release();
    expect(views.readyFor('dual-quaternion')).toBe(DebugView.WEIGHTS);
    expect(failures).toEqual([]);
  });

  it('a failed view is reported once by its name and kept: later frames neither rebuild nor report it', async () => {
    const { views, pending, release } = standIns();
    const failures: [string, string][] = [];
    const onFailed = (what: string, e: unknown) => { failures.push([what, (e as Error).message]); };
    views.request(DebugView.WEIGHTS | DebugView.NORMALS, 'dual-quaternion', onFailed);
    await release((what) => what.startsWith('mesh'));
    expect(failures).toEqual([['the weights debug view (dual-quaternion skinning)', 'no mesh weights dual-quaternion']]);
    expect(views.readyFor('dual-quaternion')).toBe(DebugView.NORMALS);
    for (let frame = 0; frame < 3; frame++) views.request(DebugView.WEIGHTS | DebugView.NORMALS, 'dual-quaternion', onFailed);
    expect(pending).toEqual([]);
    expect(failures.length).toBe(1);
    await expect(views.prepare(DebugView.WEIGHTS, 'dual-quaternion')).rejects.toThrow('no mesh weights dual-quaternion');
  });

  it('a build that arrives after destroy marks nothing ready', async () => {
    const { views, release } = standIns();
    const prepared = views.prepare(DebugView.NORMALS, 'linear');
    views.destroy();
    await release();
    await prepared;
    expect(views.readyFor('linear')).toBe(0);
  });
});
