import { describe, expect, it } from 'vitest';
import { mat4, quat, vec3 } from 'wgpu-matrix';
import { bakeModel } from '../../src/bake/bake.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import {
  CHAIN_JOINTS, CHAIN_KEY_TIMES, CHAIN_SCALE_KEYS, CHAIN_VERTICES, buildChain, chainInfluences, chainNormals, chainRestPositions,
  chainRotationKeys, chainTangents, splineTangent, type ChainOptions,
} from '../support/fixtures.ts';

/**
 * An independent evaluation of the chain fixture with wgpu-matrix: per-joint matrices
 * built from the key data, then Σ wᵢ · (Gᵢ · IBMᵢ) · v in world space — no code shared
 * with src/anim or src/skin.
 */
function referenceBake(o: ChainOptions, time: number) {
  const interpolation = o.interpolation ?? 'LINEAR';
  const k = Math.min(Math.max(Math.floor(time), 0), 1);
  const u = Math.min(Math.max(time - k, 0), 1);
  const hermite = (keys: number[][]) => {
    const dt = 1;
    const s = u, s2 = s * s, s3 = s2 * s;
    const v0 = keys[k], v1 = keys[k + 1];
    const b0 = splineTangent(v0, k + 1), a1 = splineTangent(v1, k + 1);
    return v0.map((_, i) => (2 * s3 - 3 * s2 + 1) * v0[i] + (s3 - 2 * s2 + s) * dt * b0[i] + (-2 * s3 + 3 * s2) * v1[i] + (s3 - s2) * dt * a1[i]);
  };
  const sampleRotation = (keys: number[][]) => {
    if (time >= 2) return keys[2];
    if (time <= 0) return keys[0];
    if (interpolation === 'STEP') return keys[k];
    if (interpolation === 'CUBICSPLINE') return Array.from(quat.normalize(hermite(keys)));
    return Array.from(quat.slerp(keys[k], keys[k + 1], u));
  };
  const sampleScale = (keys: number[][]) => {
    if (time >= 2) return keys[2];
    if (time <= 0) return keys[0];
    if (interpolation === 'STEP') return keys[k];
    if (interpolation === 'CUBICSPLINE') return hermite(keys);
    return Array.from(vec3.lerp(keys[k], keys[k + 1], u));
  };
  const globals: Float32Array[] = [];
  for (let j = 0; j < CHAIN_JOINTS; j++) {
    const r = sampleRotation(chainRotationKeys(j));
    const s = o.nonUniformScale && j === 1 ? sampleScale(CHAIN_SCALE_KEYS) : [1, 1, 1];
    const local = mat4.multiply(mat4.multiply(mat4.translation([0, j === 0 ? 0 : 0.5, 0]), mat4.fromQuat(r)), mat4.scaling(s));
    globals.push(j === 0 ? local : mat4.multiply(globals[j - 1], local));
  }
  const skinning = globals.map((g, j) => mat4.multiply(g, mat4.translation([0, -0.5 * j, 0])));
  const { joints, weights } = chainInfluences(!!o.eightInfluences);
  const quantised = weights.map((w) => (o.weights === 'u8' ? Math.round(w * 255) / 255 : o.weights === 'u16' ? Math.round(w * 65535) / 65535 : w));
  const rest = chainRestPositions(o.sparsePositions);
  const restNormals = chainNormals(), restTangents = chainTangents();
  const positions: number[] = [], normals: number[] = [], tangents: number[] = [];
  for (let v = 0; v < CHAIN_VERTICES; v++) {
    const ws = quantised.slice(v * 8, v * 8 + 8);
    const sum = ws.reduce((a, b) => a + b, 0);
    const m = new Float32Array(16);
    ws.forEach((w, i) => {
      const sm = skinning[joints[v * 8 + i]];
      for (let e = 0; e < 16; e++) m[e] += (w / sum) * sm[e];
    });
    positions.push(...vec3.transformMat4(rest.subarray(v * 3, v * 3 + 3), m));
    const normalMatrix = mat4.transpose(mat4.inverse(m));
    normals.push(...vec3.normalize(vec3.transformMat4Upper3x3(restNormals.subarray(v * 3, v * 3 + 3), normalMatrix)));
    tangents.push(...vec3.normalize(vec3.transformMat4Upper3x3(restTangents.subarray(v * 4, v * 4 + 3), m)), restTangents[v * 4 + 3]);
  }
  return { positions, normals, tangents };
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
};

async function checkCase(o: ChainOptions, times = [0, 0.3, 1, 1.7, 2, 3]) {
  const model = await loadGltf(buildChain(o), { name: 'chain.glb' });
  for (const time of times) {
    const out = bakeModel(model, { time });
    expect(out.primitives).toHaveLength(1);
    const ref = referenceBake(o, time);
    const p = out.primitives[0];
    expect(maxDiff(p.positions, ref.positions), `positions at t=${time}`).toBeLessThan(2e-5);
    expect(maxDiff(p.normals!, ref.normals), `normals at t=${time}`).toBeLessThan(2e-5);
    if (o.tangents) expect(maxDiff(p.tangents!, ref.tangents), `tangents at t=${time}`).toBeLessThan(2e-5);
    else expect(p.tangents).toBeUndefined();
  }
  return model;
}

describe('bake on fixtures built in code, against an independent wgpu-matrix evaluation', () => {
  it('float weights, u16 joints, LINEAR (baseline)', () => checkCase({}));
  it('normalised u8 weights (renormalised after dequantising)', () => checkCase({ weights: 'u8' }));
  it('normalised u16 weights', () => checkCase({ weights: 'u16' }));
  it('u8 joints', () => checkCase({ joints: 'u8' }));
  it('8 influences from JOINTS_1/WEIGHTS_1', async () => {
    const model = await checkCase({ eightInfluences: true });
    expect(model.meshes[0].primitives[0].influences).toBe(8);
  });
  it('TANGENT on a skinned primitive (xyz skinned, w kept)', () => checkCase({ tangents: true }));
  it('non-uniform joint scale (normals by the inverse-transpose)', () => checkCase({ nonUniformScale: true, tangents: true }));
  it('STEP on joint channels', () => checkCase({ interpolation: 'STEP', nonUniformScale: true }, [0, 0.5, 0.999, 1, 1.5, 2, 5]));
  it('CUBICSPLINE on joint channels', () => checkCase({ interpolation: 'CUBICSPLINE', nonUniformScale: true }));
  it('interleaved POSITION/NORMAL', () => checkCase({ interleaved: true }));
  it('sparse POSITION', async () => {
    const model = await checkCase({ sparsePositions: true });
    expect(model.meshes[0].primitives[0].positions[5 * 3 + 2]).toBeCloseTo(0.3, 6);
  });
  it('children listed before parents in skin.joints', async () => {
    const model = await checkCase({ childrenFirst: true });
    const skin = model.skins[0];
    // Slots are parent-first whatever the file order.
    for (let i = 0; i < skin.joints.length; i++) {
      const parent = skin.jointParents[i];
      if (parent >= 0) expect(skin.jointSlots[parent]).toBeLessThan(skin.jointSlots[i]);
    }
    expect(Array.from(skin.jointsParentFirst)).toEqual([3, 2, 1, 0]);
  });
  it('a transformed skinned mesh node (and parent) does not move the skinned vertices', () => checkCase({ transformedMeshNode: true }));
  it('everything at once', () =>
    checkCase({ weights: 'u16', joints: 'u8', eightInfluences: true, tangents: true, nonUniformScale: true, interpolation: 'CUBICSPLINE', childrenFirst: true, transformedMeshNode: true }));
});

describe('fixture data reaches the loader as encoded', () => {
  it('keeps the native joint and weight encodings for the GPU', async () => {
    const model = await loadGltf(buildChain({ weights: 'u8', joints: 'u8' }));
    const prim = model.meshes[0].primitives[0];
    expect(prim.jointSets[0].array).toBeInstanceOf(Uint8Array);
    // Quantised u8 weights rarely sum to exactly 1; the GPU divides by the sum, so they stay u8.
    expect(prim.weightSets[0].array).toBeInstanceOf(Uint8Array);
    expect(prim.weightSets[0].normalized).toBe(true);
    expect(CHAIN_KEY_TIMES.length).toBe(3);
  });
  it('keeps normalised u16 weights native too, without a warning for quantisation error', async () => {
    const model = await loadGltf(buildChain({ weights: 'u16' }));
    expect(model.meshes[0].primitives[0].weightSets[0].array).toBeInstanceOf(Uint16Array);
    expect(model.warnings).toEqual([]);
  });
});
