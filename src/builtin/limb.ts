import { GltfBuilder } from '../gltf/builder.ts';
import { addClip } from './clips.ts';
import { MeshData, addLathe, capsuleRings, chainInfluences, writePrimitive, type Ring } from './geometry.ts';
import { Rig } from './rig.ts';
import { writeSkinnedScene } from './scene.ts';

/**
 * A three-joint limb lying along +X: Upper (at the origin), Lower (elbow, at
 * x = 1) and Hand (wrist, at x = 2), as one tapered capsule. The bones point
 * along +X while their local +Y is the bone axis, so every rest rotation is
 * a real 90° turn and the inverse bind matrices are not mere translations.
 * Clips: "Bend" (elbow and wrist curl up and back) and "Swing" (the whole
 * limb swings about the vertical through the shoulder).
 */

const SEGMENT = 1;
const FPS = 30;

export function buildLimb(): GltfBuilder {
  const rig = new Rig([
    { name: 'Upper', parent: -1, head: [0, 0, 0], dir: [1, 0, 0] },
    { name: 'Lower', parent: 0, head: [SEGMENT, 0, 0], dir: [1, 0, 0] },
    { name: 'Hand', parent: 1, head: [2 * SEGMENT, 0, 0], dir: [1, 0, 0] },
  ]);
  const b = new GltfBuilder('skinned-mesh-webgpu builtin limb');
  const material = b.addMaterial({
    name: 'Limb',
    pbrMetallicRoughness: { baseColorFactor: [0.3, 0.68, 0.4, 1], metallicFactor: 0, roughnessFactor: 0.5 },
  });

  // Radius tapers 0.2 → 0.16 (elbow) → 0.13 (wrist) → 0.12; rings every 0.05 bend smoothly.
  const body: Ring[] = [];
  const radius = (h: number) => (h < 1 ? 0.2 - 0.04 * h : h < 2 ? 0.16 - 0.03 * (h - 1) : 0.13 - 0.02 * (h - 2));
  for (let k = 0; k <= 48; k++) {
    const h = 0.05 * k;
    body.push({ h, rx: radius(h), rz: radius(h) });
  }
  const mesh = new MeshData();
  addLathe(mesh, {
    frame: rig.frame(0),
    segments: 24,
    rings: capsuleRings(body, 0.2, 0.12, 6),
    influences: chainInfluences([0, 1, 2], [SEGMENT, 2 * SEGMENT], [0.2, 0.1]),
  });
  const meshIndex = b.addMesh({ name: 'Limb', primitives: [writePrimitive(b, mesh, { material, jointComponent: 'u16' })] });

  const jointNodes = writeSkinnedScene(b, rig, { name: 'Limb', mesh: meshIndex });
  const Y = [0, 1, 0] as const;
  const Z = [0, 0, 1] as const;
  const curl = (t: number) => 0.5 - 0.5 * Math.cos(Math.PI * t); // 0 → 1 → 0 over 2 s
  addClip(b, jointNodes, {
    name: 'Bend',
    duration: 2,
    fps: FPS,
    loop: true,
    tracks: [
      // Positive about model Z turns +X towards +Y: the forearm lifts.
      { joint: 1, path: 'rotation', at: (t) => rig.pose(1, rig.modelDelta(1, Z, 90 * curl(t))) },
      { joint: 2, path: 'rotation', at: (t) => rig.pose(2, rig.modelDelta(2, Z, 45 * curl(t))) },
    ],
  });
  addClip(b, jointNodes, {
    name: 'Swing',
    duration: 2,
    fps: FPS,
    loop: true,
    tracks: [
      { joint: 0, path: 'rotation', at: (t) => rig.pose(0, rig.modelDelta(0, Y, 45 * Math.sin(Math.PI * t))) },
      { joint: 1, path: 'rotation', at: (t) => rig.pose(1, rig.modelDelta(1, Z, 20 * curl(2 * t))) },
    ],
  });
  return b;
}
