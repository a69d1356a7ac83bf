import { GltfBuilder } from '../gltf/builder.ts';
import { addClip } from './clips.ts';
import { MeshData, addLathe, chainInfluences, frameAlong, rigid, writePrimitive, type Ring } from './geometry.ts';
import { Rig } from './rig.ts';
import { writeSkinnedScene } from './scene.ts';

/**
 * A capped cylinder along +Y (radius 0.25, height 2) on two joints, Base at
 * the bottom and Middle halfway up, with weights blended over the middle
 * half. Its "Twist" clip turns Middle 180° about Y: linear blend skinning
 * collapses the blended band towards the axis (the candy-wrapper artifact),
 * the classic case for dual-quaternion skinning.
 *
 * A uniformly coloured cylinder turning about its own axis looks still, so its
 * side is chequered in vertex colours (COLOR_0): the columns wind into helices
 * as it twists, and the rows pinch together where linear blending collapses.
 */

const RADIUS = 0.25;
const HEIGHT = 2;
const MIDDLE = 1;
/** Half-width of the Base→Middle blend: wide, so the collapse is easy to see. */
const BLEND = 0.5;
const SIDE_RINGS = 41;
const SEGMENTS = 32;
/** Chequer columns around the side (SEGMENTS / COLUMNS segments each) and rows along it (0.2 m each). */
const COLUMNS = 8;
const ROWS = 10;
/** Linear RGB: the chequer's two colours, and the caps'. */
const ORANGE = [0.8, 0.32, 0.07] as const;
const CREAM = [0.93, 0.86, 0.72] as const;

/** The chequer square a point of the side lies in: `around` a fraction of the turn, `h` metres up. */
function chequer(around: number, h: number): readonly [number, number, number] {
  const column = Math.floor(around * COLUMNS + 1e-9);
  // A ring exactly on a row boundary belongs to the row above it, the top ring to the last row.
  const row = Math.min(Math.floor((h / HEIGHT) * ROWS + 1e-9), ROWS - 1);
  return (column + row) % 2 === 0 ? ORANGE : CREAM;
}

export function buildTwistCylinder(): GltfBuilder {
  const rig = new Rig([
    { name: 'Base', parent: -1, head: [0, 0, 0], dir: [0, 1, 0] },
    { name: 'Middle', parent: 0, head: [0, MIDDLE, 0], dir: [0, 1, 0] },
  ]);
  const b = new GltfBuilder('skinned-mesh-webgpu builtin twist-cylinder');
  const material = b.addMaterial({
    name: 'Cylinder',
    pbrMetallicRoughness: { baseColorFactor: [1, 1, 1, 1], metallicFactor: 0, roughnessFactor: 0.55 },
  });

  const mesh = new MeshData();
  const frame = frameAlong([0, 0, 0], [0, 1, 0]);
  const side: Ring[] = [];
  for (let k = 0; k < SIDE_RINGS; k++) side.push({ h: (HEIGHT * k) / (SIDE_RINGS - 1), rx: RADIUS, rz: RADIUS });
  // Three lathes, not one, so the rims stay sharp: each cap has its own flat normals.
  addLathe(mesh, {
    frame,
    segments: SEGMENTS,
    rings: [{ h: 0, rx: 0, rz: 0 }, { h: 0, rx: RADIUS, rz: RADIUS }],
    influences: rigid(0),
    uv: [0, 0, 1, 0.1],
    color: () => ORANGE,
  });
  addLathe(mesh, {
    frame,
    segments: SEGMENTS,
    rings: side,
    influences: chainInfluences([0, 1], [MIDDLE], [BLEND]),
    uv: [0, 0.1, 1, 0.9],
    color: chequer,
  });
  addLathe(mesh, {
    frame,
    segments: SEGMENTS,
    rings: [{ h: HEIGHT, rx: RADIUS, rz: RADIUS }, { h: HEIGHT, rx: 0, rz: 0 }],
    influences: rigid(1),
    uv: [0, 0.9, 1, 1],
    color: () => CREAM,
  });
  const meshIndex = b.addMesh({
    name: 'TwistCylinder',
    primitives: [writePrimitive(b, mesh, { material, jointComponent: 'u16' })],
  });

  const jointNodes = writeSkinnedScene(b, rig, { name: 'TwistCylinder', mesh: meshIndex });
  // Keys every 22.5°: slerp between keys 180° apart would be ambiguous.
  addClip(b, jointNodes, {
    name: 'Twist',
    duration: 2,
    fps: 4,
    loop: false,
    tracks: [{ joint: 1, path: 'rotation', at: (t) => rig.pose(1, rig.localDelta(1, 90 * t)) }],
  });
  return b;
}
