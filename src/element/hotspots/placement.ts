/**
 * Where hotspots go on the canvas, without a DOM (tested in Node): model-viewer's
 * `data-position` / `data-normal` syntax, our `data-joint` / `data-offset`, projection of
 * a point to CSS pixels, the ray through a pixel, and visibility — facing the camera and
 * not hidden behind the skinned surface (a CPU ray, `SkinnedRaycaster`).
 *
 * Occlusion is decided on the CPU rather than by reading depth back: a depth readback is a
 * GPU→CPU copy mapped a frame or more later (so hotspots would lag the animation and the
 * camera), and it stalls a software rasteriser. The ray meets the very vertices the
 * renderer skinned this frame (same palettes, same method), so the answer is exact for the
 * frame drawn, and its cost is one CPU skinning of the mesh nodes the rays reach per frame
 * plus a triangle walk per hotspot — nothing at all when no hotspot is shown.
 *
 * Every function allocates nothing; outputs are caller-owned arrays (`dst` last).
 */
import type { ModelInstance } from '../../anim/instance.ts';
import type { NumArray } from '../../math/types.ts';
import type { RayHit, SkinnedRaycaster } from '../../skin/raycast.ts';

const NUMBER = '[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[+-]?\\d+)?';
const SIGNED_LENGTH_RE = new RegExp(`^(${NUMBER})(m|cm|mm)?$`, 'i');
const LENGTH_SCALE: Readonly<Record<string, number>> = { m: 1, cm: 0.01, mm: 0.001 };

/** model-viewer's defaults: a hotspot at the origin facing up. */
export const DEFAULT_HOTSPOT_POSITION: readonly number[] = [0, 0, 0];
export const DEFAULT_HOTSPOT_NORMAL: readonly number[] = [0, 1, 0];

/**
 * A joint hotspot counts as hidden only behind surface more than this share of the model's
 * framed radius in front of it: a joint lies inside its own limb, whose skin must not hide it
 * (about 6 cm on a 1.8 m character), while a torso or an arm in front does.
 */
export const JOINT_OCCLUSION_SLACK = 0.06;
/** A surface hotspot (data-position) lies on the skin: only what is this share of its distance nearer hides it. */
export const SURFACE_OCCLUSION_SLACK = 0.002;

/**
 * `data-position` / `data-normal` / `data-offset`: three lengths, `1m 2cm -3mm` or bare
 * numbers (metres), as model-viewer reads `camera-target`. Undefined when malformed (the
 * element warns and uses the default); empty text is undefined too.
 */
export function parseHotspotVector(text: string | null | undefined): [number, number, number] | undefined {
  const tokens = (text ?? '').trim().split(/\s+/).filter((t) => t.length > 0);
  if (tokens.length !== 3) return undefined;
  const out: [number, number, number] = [0, 0, 0];
  for (let i = 0; i < 3; i++) {
    const m = SIGNED_LENGTH_RE.exec(tokens[i]);
    if (!m) return undefined;
    out[i] = Number(m[1]) * LENGTH_SCALE[(m[2] ?? 'm').toLowerCase()];
    if (!Number.isFinite(out[i])) return undefined;
  }
  return out;
}

/** What a view needs: the camera's matrices of the last update and its eye (see `Camera`). */
export interface ViewMatrices {
  /** World → view, column-major. */
  readonly view: Float32Array;
  /** View → clip (WebGPU depth 0…1), column-major. */
  readonly projection: Float32Array;
  /** Eye in world units (float64 when the camera has it). */
  readonly eye: ArrayLike<number>;
}

/**
 * `dst` = (x, y) in CSS pixels from the top-left of a `width`×`height` viewport, and the
 * point's distance in front of the eye along the view axis. False (dst untouched) when the
 * point is at or behind the eye plane. Camera-relative, so exact far from the origin.
 */
export function projectToPixels(camera: ViewMatrices, point: ArrayLike<number>, width: number, height: number, dst: NumArray): boolean {
  const v = camera.view, p = camera.projection, e = camera.eye;
  const rx = point[0] - e[0], ry = point[1] - e[1], rz = point[2] - e[2];
  const vx = v[0] * rx + v[4] * ry + v[8] * rz;
  const vy = v[1] * rx + v[5] * ry + v[9] * rz;
  const vz = v[2] * rx + v[6] * ry + v[10] * rz;
  const cx = p[0] * vx + p[4] * vy + p[8] * vz + p[12];
  const cy = p[1] * vx + p[5] * vy + p[9] * vz + p[13];
  const cw = p[3] * vx + p[7] * vy + p[11] * vz + p[15];
  if (!(cw > 0)) return false;
  dst[0] = (cx / cw + 1) * 0.5 * width;
  dst[1] = (1 - cy / cw) * 0.5 * height;
  dst[2] = -vz;
  return true;
}

/**
 * The ray from the eye through CSS pixel (x, y) of a `width`×`height` viewport: `origin`
 * = the eye, `direction` a unit vector. For a perspective projection (the viewer's camera).
 */
export function pixelRay(camera: ViewMatrices, x: number, y: number, width: number, height: number, origin: NumArray, direction: NumArray): void {
  const v = camera.view, p = camera.projection, e = camera.eye;
  const ndcX = (2 * x) / width - 1, ndcY = 1 - (2 * y) / height;
  // View space: x = (ndc − P[8]) / P[0] at z = −1 (P[8], P[9]: an off-centre frustum's shift).
  const dx = (ndcX + p[8]) / p[0], dy = (ndcY + p[9]) / p[5], dz = -1;
  // World = Rᵀ · view: the view matrix's rows are the camera axes.
  let wx = v[0] * dx + v[1] * dy + v[2] * dz;
  let wy = v[4] * dx + v[5] * dy + v[6] * dz;
  let wz = v[8] * dx + v[9] * dy + v[10] * dz;
  const len = Math.sqrt(wx * wx + wy * wy + wz * wz);
  wx /= len; wy /= len; wz /= len;
  origin[0] = e[0]; origin[1] = e[1]; origin[2] = e[2];
  direction[0] = wx; direction[1] = wy; direction[2] = wz;
}

/**
 * A joint hotspot: `dst` = the joint's world position plus `offset` in the joint's own
 * frame (its world matrix applied to the offset as a point), through `placement` when the
 * instance is placed; `normalDst`, when given, = `normal` (joint frame) turned into world
 * space by the same matrices (unit length).
 */
export function jointHotspot(
  instance: ModelInstance, slot: number, offset: ArrayLike<number>, placement: NumArray | null,
  dst: NumArray, normal: ArrayLike<number> | null = null, normalDst: NumArray | null = null,
): void {
  const m = instance.nodeMatrices, o = slot * 16;
  const ox = offset[0], oy = offset[1], oz = offset[2];
  let x = m[o] * ox + m[o + 4] * oy + m[o + 8] * oz + m[o + 12];
  let y = m[o + 1] * ox + m[o + 5] * oy + m[o + 9] * oz + m[o + 13];
  let z = m[o + 2] * ox + m[o + 6] * oy + m[o + 10] * oz + m[o + 14];
  let nx = 0, ny = 0, nz = 0;
  if (normal !== null) {
    nx = m[o] * normal[0] + m[o + 4] * normal[1] + m[o + 8] * normal[2];
    ny = m[o + 1] * normal[0] + m[o + 5] * normal[1] + m[o + 9] * normal[2];
    nz = m[o + 2] * normal[0] + m[o + 6] * normal[1] + m[o + 10] * normal[2];
  }
  if (placement !== null) {
    const q = placement;
    const px = q[0] * x + q[4] * y + q[8] * z + q[12];
    const py = q[1] * x + q[5] * y + q[9] * z + q[13];
    const pz = q[2] * x + q[6] * y + q[10] * z + q[14];
    x = px; y = py; z = pz;
    const qx = q[0] * nx + q[4] * ny + q[8] * nz;
    const qy = q[1] * nx + q[5] * ny + q[9] * nz;
    const qz = q[2] * nx + q[6] * ny + q[10] * nz;
    nx = qx; ny = qy; nz = qz;
  }
  dst[0] = x; dst[1] = y; dst[2] = z;
  if (normalDst !== null) {
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
    normalDst[0] = nx / len; normalDst[1] = ny / len; normalDst[2] = nz / len;
  }
}

/**
 * A `data-position` hotspot: `dst` = `position` (model coordinates) through `placement`
 * (null: as it is), `normalDst` = `normal` turned by it (unit length).
 */
export function placeHotspot(placement: NumArray | null, position: ArrayLike<number>, normal: ArrayLike<number>, dst: NumArray, normalDst: NumArray): void {
  const px = position[0], py = position[1], pz = position[2];
  let nx = normal[0], ny = normal[1], nz = normal[2];
  if (placement === null) {
    dst[0] = px; dst[1] = py; dst[2] = pz;
  } else {
    const q = placement;
    dst[0] = q[0] * px + q[4] * py + q[8] * pz + q[12];
    dst[1] = q[1] * px + q[5] * py + q[9] * pz + q[13];
    dst[2] = q[2] * px + q[6] * py + q[10] * pz + q[14];
    const x = q[0] * nx + q[4] * ny + q[8] * nz, y = q[1] * nx + q[5] * ny + q[9] * nz, z = q[2] * nx + q[6] * ny + q[10] * nz;
    nx = x; ny = y; nz = z;
  }
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
  normalDst[0] = nx / len; normalDst[1] = ny / len; normalDst[2] = nz / len;
}

/** True when `normal` (unit or not) at `point` faces the eye (model-viewer's "facing camera"). */
export function facesEye(eye: ArrayLike<number>, point: ArrayLike<number>, normal: ArrayLike<number>): boolean {
  return normal[0] * (eye[0] - point[0]) + normal[1] * (eye[1] - point[1]) + normal[2] * (eye[2] - point[2]) > 0;
}

const ray = new Float64Array(3);

/**
 * True when the instance's surface as last skinned lies between the eye and `point`,
 * more than `slack` metres in front of it. `scratch` receives the hit.
 */
export function occluded(
  caster: SkinnedRaycaster, instance: ModelInstance, placement: NumArray | null,
  eye: ArrayLike<number>, point: ArrayLike<number>, slack: number, scratch: RayHit,
): boolean {
  const dx = point[0] - eye[0], dy = point[1] - eye[1], dz = point[2] - eye[2];
  const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(distance > slack)) return false;
  ray[0] = dx / distance; ray[1] = dy / distance; ray[2] = dz / distance;
  return caster.cast(instance, eye, ray, scratch, placement, distance - slack);
}
