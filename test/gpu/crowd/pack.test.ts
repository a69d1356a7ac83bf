/** The GPU evaluator's load-time pack (src/gpu/crowd/pack.ts), on the CPU: what goes where, and what is refused. */
import { describe, expect, it } from 'vitest';
import { Interpolation, TargetPath } from '../../../src/gltf/constants.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { ChannelWord, CLIP_WORDS, ClipWord, MeshMode, NODE_RECORD_BYTES, NodeKind, NodeRecordOffset, NO_CHANNEL, PALETTE_JOINT_BYTES, PaletteJointOffset, TABLE_WORDS } from '../../../src/gpu/crowd/layout.ts';
import { packModel } from '../../../src/gpu/crowd/pack.ts';
import { GpuLimitError } from '../../../src/gpu/device/limits.ts';
import { loadCharacter } from '../../anim/fixtures.ts';
import { buildChain, buildMorphedSkin } from '../../support/fixtures.ts';
import { loadModel } from '../gpu-test.ts';

const f32 = (w: number): number => new Float32Array(Uint32Array.of(w).buffer)[0];

describe('packModel', () => {
  it('refuses more clips than the 16-bit clip fields address, with a GpuLimitError', () => {
    const model = { animations: { length: 65536 } } as unknown as Model;
    expect(() => packModel(model)).toThrow(GpuLimitError);
    expect(() => packModel(model)).toThrow(/65536 clips; at most 65535 fit/);
  });

  it('a channel per animated slot and path, with its keys, values and interpolation', async () => {
    const model = await loadModel(buildChain({ interpolation: 'CUBICSPLINE', nonUniformScale: true }), 'chain');
    const pack = packModel(model);
    const w = pack.words;
    const clip = model.animations[0];
    const table = w[ClipWord.TABLE];
    expect(w[ClipWord.LOCK_SLOT]).toBe(NO_CHANNEL);
    for (const ch of clip.channels) {
      const record = w[table + ch.slot * TABLE_WORDS + ch.path];
      expect(record).not.toBe(NO_CHANNEL);
      expect(w[record + ChannelWord.INTERPOLATION]).toBe(Interpolation.CUBICSPLINE);
      expect(w[record + ChannelWord.KEY_COUNT]).toBe(ch.sampler.times.length);
      expect(w[record + ChannelWord.COMPONENTS]).toBe(ch.sampler.components);
      const times = Array.from({ length: ch.sampler.times.length }, (_, i) => f32(w[w[record + ChannelWord.TIME_START] + i]));
      expect(times).toEqual(Array.from(ch.sampler.times));
      const values = Array.from({ length: ch.sampler.values.length }, (_, i) => f32(w[w[record + ChannelWord.VALUE_START] + i]));
      expect(values).toEqual(Array.from(ch.sampler.values));
    }
    // Unanimated paths stay empty: J0..J3 have no translation channel.
    for (let slot = 0; slot < model.hierarchy.count; slot++) expect(w[table + slot * TABLE_WORDS + TargetPath.TRANSLATION]).toBe(NO_CHANNEL);
  });

  it('morph weights: the rest weights after the clips, each node its start and count', async () => {
    const model = await loadModel(buildMorphedSkin(), 'morphed');
    const pack = packModel(model);
    expect(pack.weightCount).toBe(2);
    expect([f32(pack.words[pack.restWeightsAt]), f32(pack.words[pack.restWeightsAt + 1])]).toEqual([0.5, 0]);
    const nodes = new Int32Array(pack.nodes);
    const counts = Array.from({ length: model.hierarchy.count }, (_, s) => nodes[(s * NODE_RECORD_BYTES + NodeRecordOffset.WEIGHT_COUNT) / 4]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it("root locks for clips with root motion, static nodes, and mesh modes", async () => {
    const model = await loadCharacter();
    const locks = model.animations.map((_, c) => (c === 0 ? { rootSlot: 1, up: [0, 1, 0], ends: [0.5, 0, -0.25, Math.PI / 2] } : undefined));
    const pack = packModel(model, locks);
    const w = pack.words;
    expect(w[ClipWord.LOCK_SLOT]).toBe(1);
    expect([f32(w[ClipWord.ORIGIN]), f32(w[ClipWord.ORIGIN + 2])]).toEqual([0.5, -0.25]);
    expect(f32(w[ClipWord.TURN_COS])).toBeCloseTo(Math.cos(Math.PI / 4), 7);
    expect(w[CLIP_WORDS + ClipWord.LOCK_SLOT]).toBe(NO_CHANNEL);
    const nodes = new Int32Array(pack.nodes);
    const kinds = Array.from({ length: model.hierarchy.count }, (_, s) => nodes[(s * NODE_RECORD_BYTES + NodeRecordOffset.KIND) / 4]);
    expect(kinds).toContain(NodeKind.TRS);
    const joints = new Int32Array(pack.paletteJoints);
    for (let j = 0; j < pack.paletteCount; j++) expect(Object.values(MeshMode)).toContain(joints[(j * PALETTE_JOINT_BYTES + PaletteJointOffset.MESH_MODE) / 4]);
    // Levels: every slot once, parents at shallower levels.
    const seen = new Set<number>();
    for (const level of pack.levels) for (let i = level.start; i < level.start + level.count; i++) seen.add(pack.levelSlots[i]);
    expect(seen.size).toBe(model.hierarchy.count);
  });
});
