/**
 * GPU = CPU by silhouette, with no compute pass and no special pipeline: the CPU reference's
 * world-space triangles are rasterised here at the 4× MSAA sample positions, and the count
 * of covered samples per pixel is compared with the coverage the Renderer resolved into
 * alpha (clear colour transparent, opaque surfaces: alpha = covered samples / 4). A vertex
 * off by a fraction of a pixel flips a sample or two along an edge; a wrong skinning
 * method, a missing morph or a mis-indexed delta moves whole runs of pixels.
 */
import { bakeModel, type BakeOptions } from '../../src/bake/bake.ts';
import type { Model } from '../../src/gltf/model.ts';
import { drawIndices } from '../../src/gltf/topology.ts';
import type { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { MSAA_SAMPLE_COUNT } from '../../src/gpu/layouts/bindings.ts';
import { projectToPixel, type Frame } from './gpu-test.ts';

/** WebGPU's standard 4-sample pattern, in pixel units from the pixel's top-left corner (y down). */
export const MSAA4_SAMPLES: readonly (readonly [number, number])[] = [[0.375, 0.125], [0.875, 0.375], [0.125, 0.625], [0.625, 0.875]];

/** World-space triangles: xyz per vertex, and a triangle list (undefined: non-indexed). */
export interface WorldTriangles {
  readonly positions: ArrayLike<number>;
  readonly indices?: ArrayLike<number>;
  /** 'back' drops triangles that wind clockwise on screen (glTF front faces are counter-clockwise). */
  readonly cull: 'back' | 'none';
}

/**
 * Per pixel, a bit per MSAA sample covered by any of the triangles (ORed into `into` if
 * given, so several meshes add up). Every vertex must be in front of the camera.
 */
export function sampleMask(camera: OrbitCamera, width: number, height: number, mesh: WorldTriangles, into?: Uint8Array): Uint8Array {
  const out = into ?? new Uint8Array(width * height);
  const n = mesh.positions.length / 3;
  const px = new Float64Array(n * 2);
  for (let v = 0; v < n; v++) {
    const p = mesh.positions;
    const [x, y] = projectToPixel(camera, width, height, [p[v * 3], p[v * 3 + 1], p[v * 3 + 2]]);
    px[v * 2] = x;
    px[v * 2 + 1] = y;
  }
  const count = mesh.indices ? mesh.indices.length : n;
  const at = (i: number): number => (mesh.indices ? mesh.indices[i] : i);
  for (let t = 0; t + 2 < count; t += 3) {
    const a = at(t), b = at(t + 1), c = at(t + 2);
    const ax = px[a * 2], ay = px[a * 2 + 1], bx = px[b * 2], by = px[b * 2 + 1], cx = px[c * 2], cy = px[c * 2 + 1];
    // Signed area with y down: negative for triangles counter-clockwise in NDC (y up).
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0 || (mesh.cull === 'back' && area > 0)) continue;
    const s = area < 0 ? -1 : 1;
    const x0 = Math.max(0, Math.floor(Math.min(ax, bx, cx))), x1 = Math.min(width - 1, Math.ceil(Math.max(ax, bx, cx)));
    const y0 = Math.max(0, Math.floor(Math.min(ay, by, cy))), y1 = Math.min(height - 1, Math.ceil(Math.max(ay, by, cy)));
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        for (let k = 0; k < MSAA4_SAMPLES.length; k++) {
          const sx = x + MSAA4_SAMPLES[k][0], sy = y + MSAA4_SAMPLES[k][1];
          const e0 = s * ((bx - ax) * (sy - ay) - (by - ay) * (sx - ax));
          const e1 = s * ((cx - bx) * (sy - by) - (cy - by) * (sx - bx));
          const e2 = s * ((ax - cx) * (sy - cy) - (ay - cy) * (sx - cx));
          if (e0 >= 0 && e1 >= 0 && e2 >= 0) out[y * width + x] |= 1 << k;
        }
      }
    }
  }
  return out;
}

/** Samples covered per pixel (0…4) from a sampleMask. */
export function samplesCovered(mask: Uint8Array): Uint8Array {
  return mask.map((m) => (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1));
}

export interface CoverageComparison {
  /** Pixels covered (at least one sample) on either side. */
  readonly covered: number;
  /** Pixels whose sample counts differ by 1 (an edge a fraction of a pixel away). */
  readonly offByOne: number;
  /** Pixels whose sample counts differ by 2 or more: geometry in the wrong place. */
  readonly wrong: number;
}

/** The frame's resolved coverage (alpha) against CPU sample counts. */
export function compareCoverage(frame: Frame, expected: Uint8Array): CoverageComparison {
  let covered = 0, offByOne = 0, wrong = 0;
  for (let i = 0; i < expected.length; i++) {
    const gpu = Math.round((frame.rgba[i * 4 + 3] * MSAA_SAMPLE_COUNT) / 255);
    const cpu = expected[i];
    if (gpu > 0 || cpu > 0) covered++;
    const d = Math.abs(gpu - cpu);
    if (d === 1) offByOne++;
    else if (d > 1) wrong++;
  }
  return { covered, offByOne, wrong };
}

/** Positions (xyz per vertex) transformed by a column-major 4×4 world matrix at `offset`. */
export function transformPositions(positions: ArrayLike<number>, m: ArrayLike<number>, offset = 0): Float64Array {
  const out = new Float64Array(positions.length);
  for (let v = 0; v < positions.length; v += 3) {
    const x = positions[v], y = positions[v + 1], z = positions[v + 2];
    for (let r = 0; r < 3; r++) out[v + r] = m[offset + r] * x + m[offset + 4 + r] * y + m[offset + 8 + r] * z + m[offset + 12 + r];
  }
  return out;
}

/** The premultiplied frame over an opaque grey, for PNGs people look at. */
export function overBackdrop(frame: Frame, backdrop: readonly number[] = [40, 43, 48]): Uint8Array {
  const out = new Uint8Array(frame.rgba);
  for (let i = 0; i < out.length; i += 4) {
    const a = out[i + 3] / 255;
    for (let c = 0; c < 3; c++) out[i + c] = Math.round(out[i + c] + backdrop[c] * (1 - a));
    out[i + 3] = 255;
  }
  return out;
}

/**
 * Sample counts of every skinned primitive of `model` as the CPU bake poses it (world space,
 * double precision), each culled as its material says: the reference a frame of the same
 * pose and skinning method is compared with (compareCoverage).
 */
export function bakedCoverage(camera: OrbitCamera, width: number, height: number, model: Model, options: BakeOptions): Uint8Array {
  const baked = bakeModel(model, options);
  const mask = new Uint8Array(width * height);
  for (const b of baked.primitives) {
    const prim = model.meshes[b.mesh].primitives[b.primitive];
    const material = prim.material >= 0 ? model.materials[prim.material] : undefined;
    sampleMask(camera, width, height, { positions: b.positions, indices: drawIndices(prim), cull: material?.doubleSided ? 'none' : 'back' }, mask);
  }
  return samplesCovered(mask);
}
