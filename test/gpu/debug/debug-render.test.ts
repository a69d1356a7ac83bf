/**
 * The debug views drawn by the Renderer on Dawn (SwiftShader), checked by pixels against
 * what the CPU reference says should be where: joints and bones at the posed joints,
 * normal and tangent lines from the CPU-skinned vertices, weight colours by joint, and
 * wireframe edges on the triangle edges. PNGs of every view on the built-in character go
 * to test-artifacts/debug-character-*.png.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateModelInstance } from '../../../src/anim/instance.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { DebugView } from '../../../src/gpu/debug/views.ts';
import { ToneMapping } from '../../../src/gpu/layouts/bindings.ts';
import { readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { createSkinnedVertices, skinPrimitive } from '../../../src/skin/cpu-skin.ts';
import { assetPath } from '../../support/assets.ts';
import { buildChain } from '../../support/fixtures.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { buildSphere, buildTwoJointStrip } from '../fixtures.ts';
import { expectNoGpuErrors, loadModel, luma, OffscreenScene, pixel, projectToPixel, testDevice, countGpuCalls, type Frame } from '../gpu-test.ts';

const device = await testDevice();
const SIZE = 160;

type Rgba = [number, number, number, number];

const srgbToLinear = (v: number): number => (v <= 10.31475 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
const linearToSrgb = (c: number): number => Math.round(255 * (c <= 0.0031308 ? c * 12.92 : 1.055 * Math.min(1, c) ** (1 / 2.4) - 0.055));

/**
 * An edge pixel of an overlay drawn over the transparent clear colour, un-premultiplied:
 * the resolve averages linear colour and coverage, the -srgb target then encodes.
 */
function straight([r, g, b, a]: Rgba): Rgba {
  if (a === 0 || a === 255) return [r, g, b, a];
  const k = 255 / a;
  return [linearToSrgb(srgbToLinear(r) * k), linearToSrgb(srgbToLinear(g) * k), linearToSrgb(srgbToLinear(b) * k), 255];
}

/** The pixel nearest (x, y) and its 8 neighbours, un-premultiplied. */
function neighbourhood(frame: Frame, x: number, y: number, radius = 1): Rgba[] {
  const out: Rgba[] = [];
  for (let dy = -radius; dy <= radius; dy++) for (let dx = -radius; dx <= radius; dx++) out.push(straight(pixel(frame, Math.round(x) + dx, Math.round(y) + dy)));
  return out;
}

const isJointColour = ([r, g, b]: Rgba): boolean => r > 200 && g > 90 && g < 200 && b < 110;
const isBoneColour = ([r, g, b]: Rgba): boolean => Math.min(r, g, b) > 150 && Math.max(r, g, b) - Math.min(r, g, b) < 40;
const isNormalColour = ([r, g, b]: Rgba): boolean => b > 150 && b > r + 60 && b > g + 20;
const isTangentColour = ([r, g, b]: Rgba): boolean => r > 150 && g < 110 && b < 110;
const isMirroredTangentColour = ([r, g, b]: Rgba): boolean => r > 150 && g > 150 && b < 110;

/** Pixel distance from p to the segment a–b. */
function distanceToSegment(p: number[], a: number[], b: number[]): number {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2)) : 0;
  return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

function changedPixels(a: Frame, b: Frame): number {
  let n = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    if (Math.abs(a.rgba[i] - b.rgba[i]) + Math.abs(a.rgba[i + 1] - b.rgba[i + 1]) + Math.abs(a.rgba[i + 2] - b.rgba[i + 2]) + Math.abs(a.rgba[i + 3] - b.rgba[i + 3]) > 8) n++;
  }
  return n;
}

/** World position of skin joint `j` from the CPU pose. */
function jointWorld(scene: OffscreenScene, j: number): number[] {
  const slot = scene.instance.model.skins[0].jointSlots[j];
  return Array.from(scene.instance.nodeMatrices.subarray(slot * 16 + 12, slot * 16 + 15));
}

/** jointColor of mesh-debug.wgsl: golden-ratio hues at full saturation (linear RGB). */
function jointColour(joint: number): number[] {
  const hue = (joint * 0.61803398875 + 0.05) % 1;
  return [1, 2 / 3, 1 / 3].map((o) => Math.min(1, Math.max(0, Math.abs(((hue + o) % 1) * 6 - 3) - 1)));
}

const ALL_VIEWS = DebugView.SKELETON | DebugView.NORMALS | DebugView.TANGENTS | DebugView.WEIGHTS | DebugView.WIREFRAME;

describe.skipIf(!device)('debug views (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  /** The built-in character at 384², posed, every view built: shared by the last tests (pipelines compile once). */
  let character: Promise<OffscreenScene> | undefined;
  const characterScene = (): Promise<OffscreenScene> => (character ??= (async () => {
    const big = new OffscreenScene(gpu, 384, 384);
    big.renderer.settings.clearColor.set([0.16, 0.17, 0.19, 1]);
    big.camera.yaw = 0.5;
    big.camera.pitch = 0.15;
    await big.setModel(await loadModel(buildBuiltinGlb('character'), 'character'));
    updateModelInstance(big.instance, 0, 0.4);
    await big.renderer.prepareDebugViews(ALL_VIEWS);
    return big;
  })());
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
  });
  afterAll(async () => {
    scene?.destroy();
    (await character)?.destroy();
  });

  /** Renders the current pose with `mask` (building the views first) and without. */
  async function withAndWithout(mask: number): Promise<{ on: Frame; off: Frame }> {
    const s = scene.renderer.settings;
    s.debug = 0;
    const off = await scene.render();
    s.debug = mask;
    await scene.renderer.prepareDebugViews();
    expect(scene.renderer.debugViewsReady & mask).toBe(mask);
    const on = await scene.render();
    s.debug = 0;
    return { on, off };
  }

  it('SKELETON: joint discs on the posed joints and bones between them, over the surface; mesh-node transforms cancel', async () => {
    for (const transformedMeshNode of [false, true]) {
      const model = await loadModel(buildChain({ transformedMeshNode }), `chain${transformedMeshNode ? ' (transformed mesh node)' : ''}`);
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(model);
        scene.pose(0, 1.5);
        scene.camera.frame(computeInstanceBounds(scene.instance));
        scene.camera.distance *= 1.1;
        const { on, off } = await withAndWithout(DebugView.SKELETON);
        writeArtifactPng(`debug-skeleton-chain${transformedMeshNode ? '-transformed' : ''}`, SIZE, SIZE, on.rgba);
        const skin = model.skins[0];
        for (let j = 0; j < skin.joints.length; j++) {
          const [x, y] = projectToPixel(scene.camera, SIZE, SIZE, jointWorld(scene, j));
          // The joints lie inside the strip, just behind its front surface: drawn anyway
          // (joint 0 is on the strip's bottom edge).
          if (j > 0) expect(pixel(off, x, y)[3], `joint ${j} is covered by the surface`).toBe(255);
          expect(isJointColour(pixel(on, x, y)), `joint ${j} at (${x.toFixed(1)}, ${y.toFixed(1)}): ${pixel(on, x, y)}`).toBe(true);
          const parent = skin.jointParents[j];
          if (parent < 0) continue;
          const [px, py] = projectToPixel(scene.camera, SIZE, SIZE, jointWorld(scene, parent));
          // Between the discs the bone: light grey fill (outlined in black).
          for (const t of [0.3, 0.5]) {
            const bx = px + (x - px) * t, by = py + (y - py) * t;
            expect(neighbourhood(on, bx, by).some(isBoneColour), `bone ${parent}→${j} at ${t}: ${neighbourhood(on, bx, by).join(' ')}`).toBe(true);
          }
        }
        // Nothing else changes: the skeleton covers a small part of the image.
        expect(changedPixels(on, off)).toBeLessThan(SIZE * SIZE * 0.08);
      });
    }
  });

  it('NORMALS and TANGENTS: lines start at the GPU-skinned vertices and follow the skinned frames (CPU reference), tangents coloured by w', async () => {
    const model = await loadModel(buildChain({ tangents: true }), 'chain with tangents');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      scene.camera.yaw = 0.5;
      scene.camera.pitch = 0.25;
      scene.pose(0, 0.6);
      scene.camera.frame(computeInstanceBounds(scene.instance));
      scene.camera.distance *= 1.2;
      s.debugLineLength = 0.3;
      try {
        const prim = model.meshes[0].primitives[0];
        const cpu = skinPrimitive(prim, scene.instance.palette, createSkinnedVertices(prim, 'float64'), scene.instance.paletteOffsets[0]);
        const skinned = { positions: cpu.positions, normals: cpu.normals!, tangents: cpu.tangents! };
        const rest = { positions: prim.positions, normals: prim.normals!, tangents: prim.tangents! };
        for (const view of [DebugView.NORMALS, DebugView.TANGENTS]) {
          const { on } = await withAndWithout(view);
          writeArtifactPng(`debug-${view === DebugView.NORMALS ? 'normals' : 'tangents'}-chain`, SIZE, SIZE, on.rgba);
          /** Each vertex's line as a pixel-space segment, with the colour test it should pass. */
          const segments = (frame: { positions: ArrayLike<number>; normals: ArrayLike<number>; tangents: ArrayLike<number> }) => {
            const out: { a: number[]; b: number[]; colour: (p: Rgba) => boolean }[] = [];
            for (let v = 0; v < prim.vertexCount; v++) {
              const d = view === DebugView.NORMALS ? [0, 1, 2].map((c) => frame.normals[v * 3 + c]) : [0, 1, 2].map((c) => frame.tangents[v * 4 + c]);
              const len = Math.hypot(...d);
              const p0 = [0, 1, 2].map((c) => frame.positions[v * 3 + c]);
              out.push({
                a: projectToPixel(scene.camera, SIZE, SIZE, p0),
                b: projectToPixel(scene.camera, SIZE, SIZE, p0.map((x, c) => x + (d[c] / len) * 0.3)),
                colour: view === DebugView.NORMALS ? isNormalColour : prim.tangents![v * 4 + 3] >= 0 ? isTangentColour : isMirroredTangentColour,
              });
            }
            return out;
          };
          /** Line-coloured pixels (of any line colour) and how many lie within 1.5 px of a segment of their colour. */
          const explained = (segs: ReturnType<typeof segments>): [number, number] => {
            let coloured = 0, near = 0;
            for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) {
              const p = straight(pixel(on, x, y));
              const own = segs.filter((g) => g.colour(p));
              if (own.length === 0 && ![isNormalColour, isTangentColour, isMirroredTangentColour].some((c) => c(p))) continue;
              coloured++;
              if (own.some((g) => distanceToSegment([x + 0.5, y + 0.5], g.a, g.b) <= 1.5)) near++;
            }
            return [coloured, near];
          };
          const posed = segments(skinned);
          const [coloured, near] = explained(posed);
          const name = view === DebugView.NORMALS ? 'normal' : 'tangent';
          // Every line pixel lies on the line of a CPU-skinned vertex, in that vertex's colour
          // (tangents: red for w = +1, yellow for w = −1)…
          expect(coloured, `${name} line pixels`).toBeGreaterThan(60);
          expect(near, `${name} line pixels on a CPU-skinned line`).toBe(coloured);
          // …and most line ends show (the rest hide behind the surface: lines are depth-tested).
          const visibleEnds = posed.filter((g) => neighbourhood(on, g.b[0], g.b[1]).some(g.colour)).length;
          expect(visibleEnds, `${name} line ends visible`).toBeGreaterThanOrEqual(prim.vertexCount * 0.6);
          // The unskinned (rest) frames do not explain the image.
          const [, nearRest] = explained(segments(rest));
          expect(nearRest / coloured, `${name} line pixels on a rest-pose line`).toBeLessThan(0.6);
        }
      } finally {
        s.debugLineLength = 0;
      }
    });
  });

  it('NORMALS on a sphere: lines stick out of the silhouette by their length, and only that far', async () => {
    const model = await loadModel(buildSphere(24, 12), 'sphere');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModelHeadOn(model, 4);
      s.debugLineLength = 0.25;
      try {
        const { on, off } = await withAndWithout(DebugView.NORMALS);
        writeArtifactPng('debug-normals-sphere', SIZE, SIZE, on.rgba);
        const [cx, cy] = projectToPixel(scene.camera, SIZE, SIZE, [0, 0, 0]);
        const [ex] = projectToPixel(scene.camera, SIZE, SIZE, [1, 0, 0]);
        // Pixels per world unit at the centre's depth.
        const radius = ex - cx;
        // In perspective a sphere of radius R at distance D spans tan(asin(R / D)) · D of that.
        const outline = (r: number): number => Math.tan(Math.asin(r / scene.camera.distance)) * scene.camera.distance;
        let outside = 0, farthest = 0, wrongColour = 0;
        for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) {
          if (pixel(off, x, y)[3] !== 0 || pixel(on, x, y)[3] === 0) continue;
          outside++;
          farthest = Math.max(farthest, Math.hypot(x + 0.5 - cx, y + 0.5 - cy) / radius);
          if (!isNormalColour(straight(pixel(on, x, y)))) wrongColour++;
        }
        expect(outside).toBeGreaterThan(40);
        expect(wrongColour).toBe(0);
        // The line ends trace the outline of a sphere 1.25 times as large; a pixel of rasterisation allowed.
        expect(farthest).toBeGreaterThan(outline(1.25) - 1.5 / radius);
        expect(farthest).toBeLessThan(outline(1.25) + 1.5 / radius);
      } finally {
        s.debugLineLength = 0;
      }
    });
  });

  it('WEIGHTS: each joint its own colour, blended where the weights blend; one more pipeline (a variant of the mesh key)', async () => {
    const model = await loadModel(buildTwoJointStrip({ weights: 'u8', joints: 'u8' }), 'strip');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModelHeadOn(model, 3, [0, 1, 0]);
      // Light straight from the camera onto +z normals: full diffuse, so the colours are exact.
      s.lightSpace = 'world';
      s.lightDirection.set([0, 0, 1]);
      s.toneMapping = ToneMapping.NONE;
      const before = scene.renderer.pipelineCount;
      try {
        const { on, off } = await withAndWithout(DebugView.WEIGHTS);
        writeArtifactPng('debug-weights-strip', SIZE, SIZE, on.rgba);
        expect(scene.renderer.pipelineCount).toBe(before + 1);
        // Rows 0–1 (y ≤ 0.25) are all joint 0, rows 7–8 all joint 1, row 4 (y = 1) 128/255 joint 1.
        for (const [y, w1] of [[0.12, 0], [1.0, 128 / 255], [1.88, 1]] as const) {
          const expected = jointColour(0).map((c0, c) => linearToSrgb((1 - w1) * c0 + w1 * jointColour(1)[c]));
          const got = pixel(on, ...projectToPixel(scene.camera, SIZE, SIZE, [0, y, 0.001]));
          for (let c = 0; c < 3; c++) expect(Math.abs(got[c] - expected[c]), `y ${y}: got ${got}, expected ${expected}`).toBeLessThanOrEqual(3);
          expect(got[3]).toBe(255);
        }
        const bottom = pixel(on, ...projectToPixel(scene.camera, SIZE, SIZE, [0, 0.12, 0]));
        const top = pixel(on, ...projectToPixel(scene.camera, SIZE, SIZE, [0, 1.88, 0]));
        expect(bottom[0] - bottom[2], 'joint 0 is red').toBeGreaterThan(150);
        expect(top[2] - top[0], 'joint 1 is blue').toBeGreaterThan(150);
        // Shaded colour and weight colour really differ (the surface is orange without the view).
        expect(changedPixels(on, off)).toBeGreaterThan(200);
      } finally {
        s.lightSpace = 'view';
        s.lightDirection.set([0.45, 0.75, 0.5]);
        s.toneMapping = ToneMapping.PBR_NEUTRAL;
      }
    });
  });

  it('WIREFRAME: bright lines on the triangle edges, faces untouched, nothing outside the surface', async () => {
    const model = await loadModel(buildTwoJointStrip({ weights: 'float', joints: 'u16' }), 'strip');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModelHeadOn(model, 2.6, [0, 1, 0]);
      const { on, off } = await withAndWithout(DebugView.WIREFRAME);
      writeArtifactPng('debug-wireframe-strip', SIZE, SIZE, on.rgba);
      const at = (p: number[]) => projectToPixel(scene.camera, SIZE, SIZE, p);
      // Horizontal edges between rows (y = 0.25 k) and the diagonals of each quad: the
      // bluish white lines raise the blue of the orange surface.
      for (const p of [[0, 1, 0], [0, 0.5, 0], [-0.1, 1.5, 0], [0, 1.125, 0]]) {
        const [x, y] = at(p);
        const gain = Math.max(...[-1, 0, 1].map((dy) => pixel(on, x, y + dy)[2] - pixel(off, x, y + dy)[2]));
        expect(gain, `edge at ${p}`).toBeGreaterThan(60);
        expect(luma(on, x, y)).toBeGreaterThanOrEqual(luma(off, x, y) - 2);
      }
      // Inside a triangle, away from its edges: unchanged. (Row 3, y 0.75–1: the triangle left of the diagonal.)
      const inside = at([-0.12, 0.95, 0]);
      expect(pixel(on, ...inside)).toEqual(pixel(off, ...inside));
      let outside = 0;
      for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) {
        if (pixel(off, x, y)[3] === 0 && pixel(on, x, y)[3] > 0) {
          // The outline itself may cover a sliver of the pixels next to the silhouette.
          const near = neighbourhood(off, x, y).some((p) => p[3] > 0);
          if (!near) outside++;
        }
      }
      expect(outside).toBe(0);
    });
  });

  it('a view asked for by a frame is built in the background and drawn once ready', async () => {
    const model = await loadModel(readFileSync(assetPath('SimpleSkin')), 'SimpleSkin');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      expect(scene.renderer.debugViewsReady).toBe(0);
      s.debug = DebugView.SKELETON | DebugView.WIREFRAME;
      try {
        const first = await scene.render();
        // The first frame started building and drew without the views.
        await scene.renderer.prepareDebugViews();
        expect(scene.renderer.debugViewsReady).toBe(DebugView.SKELETON | DebugView.WIREFRAME);
        const later = await scene.render();
        expect(changedPixels(first, later)).toBeGreaterThan(10);
        // setModel with views on builds them before it resolves.
        await scene.setModel(model);
        expect(scene.renderer.debugViewsReady).toBe(DebugView.SKELETON | DebugView.WIREFRAME);
      } finally {
        s.debug = 0;
      }
    });
  });

  it('every view on the built-in character (PNGs to look at)', async () => {
    const big = await characterScene();
    const s = big.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      const views: [string, number][] = [
        ['none', 0],
        ['skeleton', DebugView.SKELETON],
        ['normals', DebugView.NORMALS],
        ['tangents', DebugView.TANGENTS],
        ['weights', DebugView.WEIGHTS],
        ['wireframe', DebugView.WIREFRAME],
        ['weights-wireframe-skeleton', DebugView.WEIGHTS | DebugView.WIREFRAME | DebugView.SKELETON],
      ];
      let plain: Frame | undefined;
      try {
        for (const [name, mask] of views) {
          s.debug = mask;
          const frame = await big.render();
          writeArtifactPng(`debug-character-${name}`, frame.width, frame.height, frame.rgba);
          if (!plain) plain = frame;
          else expect(changedPixels(frame, plain), name).toBeGreaterThan(300);
        }
      } finally {
        s.debug = 0;
      }
    });
  });

  it('the frame path with every view on, for 1 and 3 instances: 3 writeBuffers and 1 submit, no GPU objects created', async () => {
    const big = await characterScene();
    const s = big.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      s.debug = ALL_VIEWS;
      const crowd = [big.instance, big.instance, big.instance];
      const placements = new Float64Array(3 * 16);
      for (let k = 0; k < 3; k++) placements.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, (k - 1) * 0.8, 0, 0, 1], k * 16);
      big.renderer.render(big.target, big.camera, big.instance);
      big.renderer.renderInstances(big.target, big.camera, crowd, 3, placements);
      // One frame of each kind, each after the other kind: with every view on, a frame of the character
      // costs SwiftShader ~0.5 s of CPU (three instances ~1.4 s), at 96² as at 384².
      const frames = 2;
      const counts = countGpuCalls(gpu, () => {
        for (let f = 0; f < frames; f++) {
          big.pose(0, f * 0.1);
          if (f % 2) big.renderer.renderInstances(big.target, big.camera, crowd, 3, placements);
          else big.renderer.render(big.target, big.camera, big.instance);
        }
      });
      expect(counts).toEqual({ writeBuffer: 3 * frames, submit: frames, createCommandEncoder: frames });
      const crowdFrame = { width: big.width, height: big.height, rgba: await readTexturePixels(gpu, big.target) };
      writeArtifactPng('debug-character-all-views-3-instances', big.width, big.height, crowdFrame.rgba);
      s.debug = 0;
      await gpu.queue.onSubmittedWorkDone();
    });
  });
});
