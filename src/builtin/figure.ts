import { ellipsoidRings, ring, type MeshData, type Ring } from './geometry.ts';
import type { SeatRing } from './seat.ts';

/**
 * The body's shape around its fixed joints: the profiles the torso, arms, legs and head are
 * turned from. The joints (and so limb lengths, shoulder and hip width between the joints, the
 * clips and retargeting) are the rig's; a figure changes only the surface over them. The VRM
 * avatars keep the plain mannequin's (BASE_FIGURE); the dressed character has its own
 * (CHARACTER_FIGURE).
 */
export interface Figure {
  /** The torso's rings, crotch (with a seat: waist) to neck base (h in metres above the ground). */
  torso: readonly Ring[];
  /** An arm's sleeve along UpperArm's bone (h from the shoulder joint; the wrist at 0.54), and its caps' lengths. */
  arm: Limb;
  /** A leg's trousers along UpperLeg's bone (h from the hip joint; the ankle at 0.84), and its caps' lengths. */
  leg: Limb;
  /** The head's rings along its axis, centred on h = 0 (the head's centre). */
  head: readonly Ring[];
  /**
   * Trousers whose seat turns into the thighs (seat.ts): its rings, below the torso's first; the
   * thighs it shows (rings along UpperLeg's bone, as `leg`'s, down to where the leg comes out); and
   * the pole that closes it inside the legs. Absent: the torso's first ring is its pole.
   */
  seat?: { rings: readonly SeatRing[]; thigh: readonly Ring[]; poleH: number; poleDz: number };
}

export interface Limb {
  rings: readonly Ring[];
  capStart: number;
  capEnd: number;
}

/** An offset ring (see Ring.dz). */
const shifted = (h: number, rx: number, rz: number, dz: number): Ring => ({ h, rx, rz, dz });

/** The mannequin's figure: an elliptical torso and straight, round limbs. */
export const BASE_FIGURE: Figure = {
  torso: [
    ring(0.8, 0, 0), ring(0.815, 0.1, 0.07), ring(0.84, 0.145, 0.095), ring(0.88, 0.165, 0.105),
    ring(0.95, 0.17, 0.11), ring(1.02, 0.155, 0.1), ring(1.07, 0.15, 0.1), ring(1.14, 0.16, 0.105),
    ring(1.22, 0.175, 0.115), ring(1.3, 0.18, 0.115), ring(1.36, 0.175, 0.11), ring(1.41, 0.155, 0.1),
    ring(1.445, 0.11, 0.08), ring(1.465, 0.05, 0.045), ring(1.47, 0, 0),
  ],
  arm: {
    rings: [
      ring(0, 0.05), ring(0.07, 0.05), ring(0.14, 0.046), ring(0.21, 0.043), ring(0.28, 0.04),
      ring(0.34, 0.04), ring(0.42, 0.036), ring(0.49, 0.033), ring(0.54, 0.031),
    ],
    capStart: 0.05,
    capEnd: 0.02,
  },
  leg: {
    rings: [
      ring(0, 0.082), ring(0.1, 0.078), ring(0.2, 0.07), ring(0.3, 0.062), ring(0.42, 0.055),
      ring(0.5, 0.055), ring(0.6, 0.052), ring(0.7, 0.046), ring(0.8, 0.042), ring(0.84, 0.042),
    ],
    capStart: 0.06,
    capEnd: 0.035,
  },
  head: ellipsoidRings(0.105, 0.125, 0.115, 13),
};

/**
 * The dressed character's figure, shaped after the stylised game characters a newcomer compares it
 * with (a broad chest over a narrower waist, square shoulders, a seat, tapered limbs, a jaw):
 * - torso: shoulders out to the arms' tops and flatter on top, a chest 4 cm wider than the waist and
 *   pushed forward, the waist drawn in, the seat set back;
 * - seat (seat.ts): below the waist the trousers turn into the thighs and end round them at the
 *   crotch, over legs whose open tops it hides;
 * - arms: a deltoid at the top that meets the shoulder, a biceps, a narrower elbow, a forearm
 *   swelling below it and a wrist flatter than it is wide;
 * - legs: fuller thighs tapering to the knee, a calf, and a hem that falls over the shoe;
 * - head: a jaw, narrower towards the chin (CHARACTER_HEAD_SCALE makes the whole head larger).
 * The torso has one ring more than BASE_FIGURE's at the shoulders; below the waist the seat's rings replace its four.
 */
export const CHARACTER_FIGURE: Figure = {
  torso: [
    // Below the waist, the seat (below).
    shifted(0.95, 0.171, 0.104, -0.011), shifted(1.02, 0.154, 0.096, -0.004),
    shifted(1.07, 0.15, 0.096, 0), shifted(1.14, 0.165, 0.104, 0.006), shifted(1.22, 0.187, 0.116, 0.012),
    shifted(1.3, 0.197, 0.117, 0.012), shifted(1.36, 0.199, 0.108, 0.006), shifted(1.405, 0.188, 0.094, 0),
    shifted(1.43, 0.172, 0.086, 0), shifted(1.452, 0.125, 0.075, 0), shifted(1.466, 0.052, 0.046, 0), shifted(1.472, 0, 0, 0),
  ],
  arm: {
    // Frame x lies in the body's plane (across the arm seen from the front), z front to back.
    rings: [
      ring(0, 0.055, 0.057), ring(0.06, 0.056, 0.057), ring(0.13, 0.047, 0.05), ring(0.21, 0.043, 0.045), ring(0.28, 0.038, 0.04),
      ring(0.33, 0.041, 0.045), ring(0.42, 0.035, 0.039), ring(0.49, 0.029, 0.034), ring(0.54, 0.027, 0.032),
    ],
    capStart: 0.055,
    capEnd: 0.02,
  },
  leg: {
    // Frame z is forward: the thigh's front and the calf's back are the fuller sides. Above 0.1 the
    // seat shows the thigh (seat.thigh) and hides the leg: its top is open, and it keeps 7 mm or
    // more inside the seat down to 1.5 cm above where it comes out, so no two surfaces lie close
    // enough to show through each other.
    rings: [
      shifted(-0.04, 0.06, 0.064, -0.008), shifted(0, 0.072, 0.077, -0.006), shifted(0.085, 0.082, 0.084, -0.002), shifted(0.1, 0.09, 0.092, 0), ring(0.2, 0.081, 0.084), ring(0.3, 0.07, 0.073),
      ring(0.42, 0.06, 0.061), shifted(0.5, 0.06, 0.062, -0.003), shifted(0.6, 0.057, 0.06, -0.004), ring(0.7, 0.052, 0.054),
      ring(0.8, 0.05, 0.051), ring(0.84, 0.052, 0.053),
    ],
    capStart: 0,
    capEnd: 0.035,
  },
  // The seat: the hips' ellipse filled out by the thighs' tops below the hip joints (0.92), drawn in
  // towards the crotch (0.82), where the thighs alone remain, with a narrow bridge between them.
  seat: {
    rings: [
      { h: 0.82, rx: 0.012, rz: 0.012, dz: -0.006, margin: 0.0015 },
      { h: 0.85, rx: 0.12, rz: 0.07, dz: -0.012, margin: 0.003 },
      { h: 0.88, rx: 0.168, rz: 0.095, dz: -0.016, margin: 0.004 },
      { h: 0.92, rx: 0.172, rz: 0.104, dz: -0.014, margin: 0.004 },
    ],
    thigh: [shifted(0, 0.08, 0.085, -0.006), shifted(0.06, 0.09, 0.093, -0.003), shifted(0.1, 0.09, 0.092, 0)],
    poleH: 0.81,
    poleDz: -0.006,
  },
  head: ellipsoidRings(0.105, 0.125, 0.115, 13).map((r) => {
    // Below the centre the sides come in towards the chin; the front (the face's marks) stays.
    const below = Math.max(0, -r.h / 0.125);
    return { h: r.h, rx: r.rx * (1 - 0.2 * below * below), rz: r.rz * (1 - 0.06 * below * below) };
  }),
};

/** The dressed character's head (and all on it: face, hair, ears) against the mannequin's, about CHARACTER_HEAD_PIVOT. */
export const CHARACTER_HEAD_SCALE = 1.14;
/** A little below the head's centre: the head grows mostly upwards and outwards, its chin 1 cm lower (the neck shows less). */
export const CHARACTER_HEAD_PIVOT = [0, 1.67, 0.01] as const;

/** The dressed character's hands (palm, fingers, thumb) against the mannequin's, about the wrist joint. */
export const CHARACTER_HAND_SCALE = 1.1;

/**
 * Scales the part of `mesh` that follows `joint` about `pivot` without moving the joint: a vertex
 * on it alone by `k`, one it shares by as much of that as its weight (1 + (k − 1)·w), so a blend
 * into the neighbouring part (a wrist, a neck) stays smooth. Normals are left as they are: exact
 * for a rigid part (a uniform scale), and the blends change by less than a percent.
 */
export function scaleJointPart(mesh: MeshData, joint: number, pivot: ArrayLike<number>, k: number): void {
  const { positions, joints, weights } = mesh;
  for (let v = 0; v < mesh.vertexCount; v++) {
    let w = 0;
    for (let i = 0; i < 4; i++) if (joints[4 * v + i] === joint) w += weights[4 * v + i];
    if (w === 0) continue;
    const s = 1 + (k - 1) * w;
    for (let c = 0; c < 3; c++) positions[3 * v + c] = pivot[c] + s * (positions[3 * v + c] - pivot[c]);
  }
}
