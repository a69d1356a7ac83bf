import type { GltfBuilder } from '../gltf/builder.ts';
import {
  MeshData,
  addLathe,
  capsuleRings,
  chainInfluences,
  ellipsoidRings,
  frameAlong,
  rigid,
  ring,
  type Frame,
  type Influence,
  type Vec3Tuple,
} from './geometry.ts';
import { SIDES, sideSign, type Rig } from './rig.ts';

/**
 * What makes the built-in character look made rather than a mannequin: a face (eyes with
 * whites and irises, brows, a mouth, ears), hair, hands with four fingers and a thumb, a collar
 * and cuffs, a belt with a metal buckle, and shoes with leather uppers on rubber soles, each
 * kind of surface with its own material. Everything is rigid on, or blended between, the
 * character's existing joints: the skeleton, its names and the clips are unchanged.
 */

type V3 = [number, number, number];
const Y = [0, 1, 0] as const;
const X = [1, 0, 0] as const;
const Z = [0, 0, 1] as const;

/** How far the belt sits back of the torso's axis, with the seat of the figure (figure.ts). */
const BELT_DZ = -0.01;
const belt = (h: number, rx: number, rz: number) => ({ h, rx, rz, dz: BELT_DZ });

/** The centre of the head's ellipsoid and its semi-axes (character.ts's head lathe). */
const HEAD_CENTRE: V3 = [0, 1.7, 0.01];
const HEAD_RADII: V3 = [0.105, 0.125, 0.115];

/**
 * The dressed character's materials: fabric, denim, skin, hair, leather, rubber, glossy eye white and metal.
 * No vertex colours: every primitive has the same vertex layout, so each skinning method is one pipeline.
 */
export function addOutfitMaterials(b: GltfBuilder) {
  const material = (name: string, color: readonly [number, number, number], roughness: number, metallic = 0) =>
    b.addMaterial({ name, pbrMetallicRoughness: { baseColorFactor: [...color, 1], metallicFactor: metallic, roughnessFactor: roughness } });
  return {
    shirt: material('Shirt', [0.1, 0.42, 0.44], 0.88),
    trousers: material('Denim', [0.1, 0.17, 0.36], 0.8),
    skin: material('Skin', [0.9, 0.62, 0.47], 0.55),
    hair: material('Hair', [0.06, 0.035, 0.02], 0.45),
    leather: material('Leather', [0.2, 0.085, 0.035], 0.38),
    sole: material('Rubber', [0.82, 0.78, 0.7], 0.92),
    eyes: material('Eye white', [0.86, 0.85, 0.82], 0.15),
    metal: material('Brass', [0.85, 0.66, 0.32], 0.3, 1),
  };
}

export interface OutfitMeshes {
  hair: MeshData;
  leather: MeshData;
  sole: MeshData;
  /** The eyes' whites (the irises, brows and mouth are hair-coloured). */
  eyes: MeshData;
  metal: MeshData;
}

/**
 * Adds the face's skin parts, ears and hands to `skin`, the collar and cuffs to `shirt`, and
 * returns the parts of the other materials. `torso` is the torso's influence function, for the belt.
 */
export function buildOutfit(rig: Rig, shirt: MeshData, skin: MeshData, torso: (h: number) => readonly Influence[]): OutfitMeshes {
  const j = (name: string) => rig.index(name);
  const head = rigid(j('Head'));
  const out: OutfitMeshes = { hair: new MeshData(), leather: new MeshData(), sole: new MeshData(), eyes: new MeshData(), metal: new MeshData() };

  // Hair: the top of an ellipsoid a little larger than the head, its axis leaning back 30°, so
  // the rim is high on the forehead, over the ears at the sides and low at the nape.
  const lean = (30 * Math.PI) / 180;
  const hairAxis: V3 = [0, Math.cos(lean), -Math.sin(lean)];
  const cap = ellipsoidRings(0.118, 0.138, 0.13, 15).filter((r) => r.h >= -0.012);
  addLathe(out.hair, {
    frame: frameAlong([0, 1.705, 0.0], hairAxis),
    segments: 28,
    // An open rim: the head fills it.
    rings: [{ h: -0.012, rx: rimRadius(0.118, 0.138, -0.012), rz: rimRadius(0.13, 0.138, -0.012) }, ...cap.filter((r) => r.h > -0.012)],
    influences: head,
  });

  for (const side of SIDES) {
    const s = sideSign(side);
    // Eyes: a white, slightly flattened ball in the socket, a dark iris on its front.
    const eye = onHead(s * 0.037, 1.722);
    addLathe(out.eyes, {
      frame: frameAlong([eye[0], eye[1], eye[2] - 0.009], Z, [0, -1, 0]),
      segments: 14,
      rings: ellipsoidRings(0.019, 0.012, 0.014, 8),
      influences: head,
    });
    addLathe(out.hair, {
      frame: frameAlong([eye[0], eye[1] - 0.001, eye[2] + 0.0015], Z, [0, -1, 0]),
      segments: 12,
      rings: ellipsoidRings(0.0085, 0.003, 0.0085, 5),
      influences: head,
    });
    // Brows: short flat hair strokes along X, tilted down towards the temples.
    const brow = onHead(s * 0.04, 1.753);
    addLathe(out.hair, {
      frame: frameAlong(brow, [s, -0.15, -0.5], Z),
      segments: 8,
      rings: ellipsoidRings(0.005, 0.021, 0.004, 7),
      influences: head,
    });
    // Ears: upright ovals on the sides of the head.
    addLathe(skin, {
      frame: frameAlong([s * 0.1, 1.7, -0.004], Y, [s, 0, 0]),
      segments: 10,
      rings: ellipsoidRings(0.022, 0.032, 0.013, 7),
      influences: head,
    });
  }
  // Mouth: a short, thin dark line along X, low on the face.
  addLathe(out.hair, {
    frame: frameAlong(onHead(0, 1.64, -0.002), X, Z),
    segments: 8,
    rings: ellipsoidRings(0.0025, 0.02, 0.004, 7),
    influences: head,
  });

  // Collar: a folded band rising from the chest around the base of the neck.
  addLathe(shirt, {
    frame: frameAlong([0, 0, 0], Y),
    segments: 24,
    rings: [ring(1.42, 0.085, 0.075), ring(1.445, 0.095, 0.088), ring(1.48, 0.076, 0.07), ring(1.51, 0.066, 0.063), ring(1.515, 0.057, 0.056)],
    influences: torso,
  });

  // Belt: a leather band round the waistline, a brass buckle at its front.
  addLathe(out.leather, {
    frame: frameAlong([0, 0, 0], Y),
    segments: 28,
    // Set back with the figure's seat (CHARACTER_FIGURE's torso rings there are offset by about -0.01).
    rings: [belt(0.93, 0.162, 0.098), belt(0.935, 0.181, 0.113), belt(0.985, 0.171, 0.107), belt(0.99, 0.151, 0.094)],
    influences: torso,
  });
  addLathe(out.metal, {
    frame: frameAlong([0, 0.96, 0.116 - 0.006 + BELT_DZ], Z, [0, -1, 0]),
    segments: 12,
    rings: capsuleRings([ring(0, 0.03, 0.022), ring(0.006, 0.03, 0.022)], 0.002, 0.002, 2),
    influences: torso,
  });

  for (const side of SIDES) {
    const s = sideSign(side);
    const hand = j(`Hand.${side}`);
    const frame = rig.frame(hand);
    const palmward = scale(frame.x, s);
    const uv = side === 'L' ? ([0, 0, 1, 1] as const) : ([1, 0, 0, 1] as const);
    // Cuff: a turned-back band of sleeve over the wrist.
    addLathe(shirt, {
      frame: rig.frame(j(`LowerArm.${side}`)),
      segments: 16,
      uv,
      rings: [ring(0.215, 0.031), ring(0.22, 0.036), ring(0.25, 0.035), ring(0.255, 0.03)],
      influences: chainInfluences([j(`LowerArm.${side}`), hand], [0.26], [0.03]),
    });
    // Palm: flat, thin towards the thigh (frame x), wide front to back (frame z).
    addLathe(skin, {
      frame,
      segments: 14,
      uv,
      rings: capsuleRings([ring(0, 0.016, 0.03), ring(0.035, 0.02, 0.04), ring(0.075, 0.017, 0.042), ring(0.09, 0.014, 0.038)], 0.02, 0.008, 3),
      influences: chainInfluences([j(`LowerArm.${side}`), hand], [0], [0.02]),
    });
    // Four fingers, curled a little towards the palm, index at the front (the thumb's side).
    const fingers: [across: number, length: number, radius: number][] = [[0.028, 0.07, 0.0095], [0.0095, 0.078, 0.01], [-0.0095, 0.073, 0.0095], [-0.027, 0.058, 0.0085]];
    for (const [across, length, radius] of fingers) {
      addFinger(skin, along(frame, [0, 0.082, across]), add(scale(frame.y, Math.cos(0.3)), scale(palmward, Math.sin(0.3))), length, radius, rigid(hand));
    }
    // Thumb: from the palm's front edge, forward and towards the thigh.
    const thumbDir = add(add(scale(frame.y, 0.8), scale(frame.z, 0.3)), scale(palmward, 0.52));
    addFinger(skin, add(along(frame, [0, 0.03, 0.026]), scale(palmward, 0.006)), thumbDir, 0.055, 0.011, rigid(hand));

    // Shoe: a leather upper on a rubber sole, along the foot (+Z); the foot frame's x is the
    // width, its z points down.
    const foot = j(`Foot.${side}`);
    addLathe(out.leather, {
      frame: rig.frame(foot, [0, -0.028, -0.05]),
      segments: 18,
      uv,
      rings: capsuleRings([ring(0.03, 0.046, 0.04), ring(0.08, 0.051, 0.042), ring(0.155, 0.054, 0.036), ring(0.215, 0.048, 0.028)], 0.032, 0.04),
      influences: rigid(foot),
    });
    addLathe(out.sole, {
      frame: rig.frame(foot, [0, -0.068, -0.056]),
      segments: 18,
      uv,
      rings: capsuleRings([ring(0.03, 0.049, 0.012), ring(0.1, 0.056, 0.012), ring(0.215, 0.052, 0.012)], 0.036, 0.047, 3),
      influences: rigid(foot),
    });
  }
  return out;
}

/** A finger: a tapering capsule from `base` along `dir`, rigid on its hand. */
function addFinger(mesh: MeshData, base: Vec3Tuple, dir: Vec3Tuple, length: number, radius: number, influences: (h: number) => readonly Influence[]) {
  addLathe(mesh, {
    frame: frameAlong(base, dir, Math.abs(dir[1]) > 0.9 ? Z : Y),
    segments: 8,
    rings: capsuleRings([ring(0, radius), ring(length * 0.55, radius * 0.95), ring(length, radius * 0.85)], radius, radius * 0.85, 3),
    influences,
  });
}

/** The point of the head's front surface at (x, y), pushed `inset` outwards (negative: into the skin). */
function onHead(x: number, y: number, inset = 0): V3 {
  const [cx, cy, cz] = HEAD_CENTRE;
  const [rx, ry, rz] = HEAD_RADII;
  const u = (x - cx) / rx;
  const v = (y - cy) / ry;
  return [x, y, cz + rz * Math.sqrt(Math.max(0, 1 - u * u - v * v)) + inset];
}

/** The half-width of an ellipsoid (semi-axis `r` across, `ry` along its axis) at height `h` on its axis. */
function rimRadius(r: number, ry: number, h: number): number {
  return r * Math.sqrt(1 - (h / ry) ** 2);
}

function along(f: Frame, [a, b, c]: Vec3Tuple): V3 {
  return [f.origin[0] + f.x[0] * a + f.y[0] * b + f.z[0] * c, f.origin[1] + f.x[1] * a + f.y[1] * b + f.z[1] * c, f.origin[2] + f.x[2] * a + f.y[2] * b + f.z[2] * c];
}

function add(a: Vec3Tuple, b: Vec3Tuple): V3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}

function scale(a: Vec3Tuple, k: number): V3 {
  return [a[0] * k, a[1] * k, a[2] * k];
}
