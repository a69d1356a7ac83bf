/**
 * The demo's `.hdr` environment, made in code (no file in the repository): an
 * equirectangular sky — deep blue at the zenith to a pale horizon, a warm ground, and a
 * small bright sun — written as a Radiance RGBE file (flat scanlines, by the library's
 * `writeHdr`), so the page can hand `environment-image` a real `.hdr` the way a user's URL
 * would be. Pure: tested in Node.
 */
import { writeHdr } from 'skinned-mesh-webgpu';

/** The sun's direction: azimuth about +Y from +Z toward +X, elevation above the horizon (radians). */
const SUN_AZIMUTH = (35 * Math.PI) / 180;
const SUN_ELEVATION = (40 * Math.PI) / 180;
/** Angular radius of the sun disc, and its radiance (the sky's is about 1). */
const SUN_RADIUS = (4 * Math.PI) / 180;
const SUN_RADIANCE = 40;

/** Linear RGB radiance seen along the unit direction (x, y, z), y up. */
export function studioSky(x: number, y: number, z: number, out: Float32Array): Float32Array {
  if (y >= 0) {
    const t = Math.pow(y, 0.6); // horizon → zenith
    out[0] = 1.1 + (0.25 - 1.1) * t;
    out[1] = 1.15 + (0.45 - 1.15) * t;
    out[2] = 1.2 + (0.95 - 1.2) * t;
  } else {
    const t = Math.min(1, -y * 3); // a short blend below the horizon, then flat ground
    out[0] = 1.1 + (0.35 - 1.1) * t;
    out[1] = 1.15 + (0.28 - 1.15) * t;
    out[2] = 1.2 + (0.2 - 1.2) * t;
  }
  const sx = Math.cos(SUN_ELEVATION) * Math.sin(SUN_AZIMUTH), sy = Math.sin(SUN_ELEVATION), sz = Math.cos(SUN_ELEVATION) * Math.cos(SUN_AZIMUTH);
  const angle = Math.acos(Math.max(-1, Math.min(1, x * sx + y * sy + z * sz)));
  if (angle < SUN_RADIUS) {
    out[0] += SUN_RADIANCE;
    out[1] += SUN_RADIANCE * 0.95;
    out[2] += SUN_RADIANCE * 0.85;
  }
  return out;
}

/**
 * The studio sky as a `.hdr` file, `width`×`width/2` pixels: row 0 is straight up (−Y in
 * Radiance's header), column 0 looks along −Z and longitude grows toward +X, the layout
 * equirectangular readers (and model-viewer) use.
 */
export function studioHdr(width = 256): Uint8Array {
  if (!Number.isInteger(width) || width < 4 || width % 2 !== 0) throw new RangeError(`studioHdr: width ${width} must be an even integer ≥ 4`);
  const height = width / 2;
  const rgb = new Float32Array(width * height * 3);
  const sky = new Float32Array(3);
  for (let row = 0; row < height; row++) {
    const polar = ((row + 0.5) / height) * Math.PI; // 0 at the zenith
    for (let col = 0; col < width; col++) {
      const azimuth = ((col + 0.5) / width) * 2 * Math.PI - Math.PI; // −π: looking along −Z
      const x = Math.sin(polar) * Math.sin(azimuth), y = Math.cos(polar), z = Math.sin(polar) * Math.cos(azimuth);
      rgb.set(studioSky(x, y, z, sky), (row * width + col) * 3);
    }
  }
  return writeHdr({ width, height, rgb }, false);
}
