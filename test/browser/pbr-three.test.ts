/**
 * The PBR material extensions side by side with three.js r187's WebGPURenderer in the same
 * Chromium (WebGPU on SwiftShader), on generated equivalents of the Khronos extension test scenes
 * (pbr-three-cases.ts: ClearCoatTest, SheenChair's cloth, TransmissionTest, IridescenceLamp's
 * film): the same file (three.js reads it with its GLTFLoader), the same camera, one directional
 * key light and a uniform ambient (ours: the hemisphere with sky = ground; three.js: a uniform
 * environment map, pages/pbr-three-page.ts says why), no tone mapping, sRGB output, 4× MSAA.
 *
 * Measure: the CIE 1976 colour difference ΔE*ab per pixel over the spheres (a mask computed from
 * the camera, a pixel inside the silhouettes: their anti-aliased rims are the rasterisers' own).
 * The images are the same when the mean ΔE*ab < 3 and ≥ 98% of the pixels are within ΔE*ab 10:
 *  - a mean ΔE*ab of about 2.3 is the just-noticeable difference; measured: 0.62 (clearcoat),
 *    1.99 (sheen), 1.43 (transmission), 1.32 (iridescence), and 99.1–100% within 10;
 *  - with the extension ignored on our side (the same materials without it), every scene fails
 *    both: means 5.5, 15.9, 27.3 and 6.0, and 16–95% within 10 (each case checks that it fails);
 *  - the plain materials (the extension removed on both sides) differ by means of 0.5–1.7: the
 *    core PBR differences below, on which each extension adds less than ΔE*ab 1.5.
 * Where the two legitimately differ (the materials guide says the same):
 *  - three.js compensates the direct light's specular for multiple scattering (Turquin 2019),
 *    as neither the sample viewer nor we do: its rough metals are brighter (the film's metal);
 *  - its split-sum uses a DFG table, ours under the hemisphere an analytic fit;
 *  - its direct sheen uses Neubelt's visibility and a curve fit of the Charlie albedo, ours the
 *    sample viewer's sheen visibility and the albedo table: the cloth rims differ most (1.99);
 *  - it samples the transmitted scene's mips bicubically and lets no key light through a
 *    transmissive surface, ours samples them trilinearly and adds the sample viewer's punctual
 *    transmission lobe: the rough glass differs by a few ΔE*ab.
 */
import { describe, expect, it } from 'vitest';
import { browserUnavailable } from '../support/browser.ts';
import { writeArtifactPng } from '../support/png.ts';
import type { Rgba8Image } from './element-support.ts';
import { besideEachOther, CAMERA, PBR_THREE_CASES, pbrThreeGlb, pbrThreeScene, SPHERE_CENTRES } from './pbr-three-cases.ts';
import { maskedDifference, sphereMask, type Difference } from './pbr-similarity.ts';
import { useSideBySidePage } from './side-by-side-session.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

/** A pixel inside the radius-1 silhouettes (at this camera a sphere is about 29 pixels across the radius). */
const MASK_RADIUS = 0.96;

/** The thresholds (the header says why). */
function sameImage(d: Difference): boolean {
  return d.meanDeltaE < 3 && d.within10 >= 0.98;
}

describe.skipIf(!!unavailable)('PBR material extensions side by side with three.js r187 WebGPURenderer (Chromium)', () => {
  const side = useSideBySidePage('test/browser/pages/pbr-three.html', 'pbrThree');
  const mask = sphereMask(CAMERA, SPHERE_CENTRES, MASK_RADIUS);
  async function draw(which: 'pbrOurs' | 'pbrThree', glb: Uint8Array, name: string): Promise<Rgba8Image> {
    const s = pbrThreeScene(glb);
    const result = await side.page().evaluate(([fn, request]) => window[fn](request), [which, s] as const);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    return side.image(s, name, result.rgba);
  }

  for (const c of PBR_THREE_CASES) {
    it(`${c.name}: the same image within the thresholds, and not when we ignore ${c.extension}`, async () => {
      const theirs = await draw('pbrThree', pbrThreeGlb(c), `pbr-vs-three-${c.name}-three`);
      const ours = await draw('pbrOurs', pbrThreeGlb(c), `pbr-vs-three-${c.name}-ours`);
      const ignored = await draw('pbrOurs', pbrThreeGlb(c, false), `pbr-vs-three-${c.name}-ours-without`);
      const both = besideEachOther([ours, theirs, ignored], 4, [40, 40, 46]);
      writeArtifactPng(`pbr-vs-three-${c.name}`, both.width, both.height, both.data);
      const same = maskedDifference(ours, theirs, mask), without = maskedDifference(ignored, theirs, mask);
      expect(same.pixels).toBeGreaterThan(0.2 * CAMERA.width * CAMERA.height);
      expect(sameImage(same), JSON.stringify(same)).toBe(true);
      // Wrong input: the extension ignored fails the measure, on both counts.
      expect(sameImage(without), JSON.stringify(without)).toBe(false);
      expect(without.meanDeltaE, JSON.stringify(without)).toBeGreaterThanOrEqual(3);
      expect(without.within10, JSON.stringify(without)).toBeLessThan(0.98);
    });
  }
});
