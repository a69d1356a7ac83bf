/**
 * The per-model pipeline table (src/gpu/draw/draw-pipelines.ts) with stand-in pipeline caches:
 * which pipelines each (method, path, shadows) key asks for, when entries appear, and that
 * builds run once, failures included.
 */
import { describe, expect, it } from 'vitest';
import type { SkinningMethod } from '../../../src/anim/skinning-method.ts';
import { DrawPipelineTable, type DrawPipelineContext, type PipelineDraw } from '../../../src/gpu/draw/draw-pipelines.ts';
import type { MeshPipelineDesc } from '../../../src/gpu/pipelines/mesh.ts';
import { PbrExtensionFeature } from '../../../src/gpu/layouts/pbr-extension-uniforms.ts';
import { pbrExtensionFeatures } from '../../../src/gpu/pipelines/pbr-extensions-path.ts';

/** Rigid draws (the compute path then needs no compute pipelines, so no device). */
const draws = ['a', 'b'].map((key, i) => ({
  desc: { vertexLayoutKey: key, alphaMode: 'OPAQUE', topology: 'triangle-list', influences: 0, shadows: false },
  skinned: false, meshNode: i, primitiveIndex: 0, primitive: { rigidLayouts: [], rigidLayoutKey: key },
})) as unknown as PipelineDraw[];

/** Stand-ins for the device's caches: each pipeline is a string naming what was asked for. */
function fakeContext(failing = false): { ctx: DrawPipelineContext; asked: string[] } {
  const asked: string[] = [];
  const meshPipelines = {
    pipeline: async (d: MeshPipelineDesc) => {
      const name = `${d.vertexLayoutKey} ${d.skinning} ${d.shadows ? 'shadowed' : 'unshadowed'}${d.preskinned ? ' preskinned' : ''}`;
      asked.push(name);
      if (failing) throw new Error(`no ${name}`);
      return name;
    },
  };
  const casterPipelines = {
    pipeline: (d: MeshPipelineDesc, skinning: SkinningMethod) => Promise.resolve(`${d.vertexLayoutKey} ${skinning} caster`),
  };
  return { ctx: { device: {}, meshPipelines, casterPipelines } as unknown as DrawPipelineContext, asked };
}

describe('DrawPipelineTable', () => {
  it('builds an entry the first time it is asked for; concurrent callers share the build; get() sees it once built', async () => {
    const { ctx, asked } = fakeContext();
    const table = new DrawPipelineTable(ctx, draws, () => {});
    expect(table.get('linear', 'vertex', false)).toBeUndefined();
    const first = table.ensure('linear', 'vertex', false);
    expect(table.ensure('linear', 'vertex', false)).toBe(first);
    expect(table.get('linear', 'vertex', false)).toBeUndefined();
    const entry = await first;
    expect(table.get('linear', 'vertex', false)).toBe(entry);
    // No draw transmits light: no transmission pass pipelines.
    expect(entry).toEqual({ surface: ['a linear unshadowed', 'b linear unshadowed'], outline: [null, null], casters: [], compute: [], transmission: [] });
    expect(asked).toEqual(['a linear unshadowed', 'b linear unshadowed']);
    await table.ensure('linear', 'vertex', false);
    expect(asked.length).toBe(2);
  });

  it('with a draw that transmits light, every opaque draw also gets a pipeline into the transmission pass\'s target; the transmissive and blended draws none', async () => {
    const glass = pbrExtensionFeatures(0, PbrExtensionFeature.TRANSMISSION, 0);
    const scene = [
      { ...draws[0], desc: { ...draws[0].desc, vertexLayoutKey: 'opaque' } },
      { ...draws[0], desc: { ...draws[0].desc, vertexLayoutKey: 'glass', materialPath: 'pbr-extensions', materialFeatures: glass } },
      { ...draws[0], desc: { ...draws[0].desc, vertexLayoutKey: 'blended', alphaMode: 'BLEND' } },
    ] as unknown as PipelineDraw[];
    const { ctx } = fakeContext();
    const entry = await new DrawPipelineTable(ctx, scene, () => {}).ensure('linear', 'vertex', false);
    expect(entry.transmission).toEqual(['opaque linear unshadowed', null, null]);
    // Wrong input: without the glass, no draw needs the pass.
    const plain = await new DrawPipelineTable(ctx, [scene[0], scene[2]], () => {}).ensure('linear', 'vertex', false);
    expect(plain.transmission).toEqual([]);
  });

  it('keys method and shadows apart; a shadowed entry carries the shadow pass pipelines', async () => {
    const { ctx } = fakeContext();
    const table = new DrawPipelineTable(ctx, draws, () => {});
    const shadowed = await table.ensure('dual-quaternion', 'vertex', true);
    expect(shadowed.surface).toEqual(['a dual-quaternion shadowed', 'b dual-quaternion shadowed']);
    expect(shadowed.casters).toEqual(['a dual-quaternion caster', 'b dual-quaternion caster']);
    for (const [method, shadows] of [['dual-quaternion', false], ['linear', true], ['linear', false]] as const) {
      expect(table.get(method, 'vertex', shadows)).toBeUndefined();
    }
  });

  it('the compute path readies its method\'s vertex path first, runs the hook once, and serves frames with and without shadows', async () => {
    const { ctx } = fakeContext();
    let hooks = 0;
    const table = new DrawPipelineTable(ctx, draws, () => { hooks++; });
    const entry = await table.ensure('linear', 'compute', false);
    expect(hooks).toBe(1);
    expect(table.get('linear', 'vertex', false)).toBeDefined();
    expect(table.get('linear', 'compute', true)).toBe(entry);
    expect(entry.surface).toEqual(['a linear shadowed', 'b linear shadowed']);
    expect(entry.casters).toEqual(['a linear caster', 'b linear caster']);
    await table.ensure('linear', 'compute', true);
    expect(hooks).toBe(1);
  });

  it('request() starts a build once and reports its failure once; the failed build is kept, not retried', async () => {
    const { ctx, asked } = fakeContext(true);
    const table = new DrawPipelineTable(ctx, draws, () => {});
    const failures: unknown[] = [];
    const named: string[] = [];
    const onFailed = (what: string, e: unknown): void => { named.push(what); failures.push(e); };
    expect(table.request('linear', 'vertex', true, onFailed)).toBeUndefined();
    await expect(table.ensure('linear', 'vertex', true)).rejects.toThrow(/no a linear shadowed/);
    expect(table.request('linear', 'vertex', true, onFailed)).toBeUndefined();
    await Promise.resolve();
    expect(failures.length).toBe(1);
    expect(String(failures[0])).toMatch(/no a linear shadowed/);
    expect(named).toEqual(['the linear shadow pipelines']);
    expect(asked.length).toBe(2);
    await expect(table.ensure('linear', 'vertex', true)).rejects.toThrow(/no a linear shadowed/);
  });
});
