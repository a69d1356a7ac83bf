import { GltfBuilder } from '../gltf/builder.ts';
import { addClip, type ClipSpec } from './clips.ts';
import {
  MeshData,
  addLathe,
  capsuleRings,
  chainInfluences,
  ellipsoidRings,
  frameAlong,
  rigid,
  ring,
  smoothstep,
  writePrimitive,
} from './geometry.ts';
import { BASE_FIGURE, CHARACTER_FIGURE, CHARACTER_HEAD_PIVOT, CHARACTER_HAND_SCALE, CHARACTER_HEAD_SCALE, scaleJointPart, type Figure } from './figure.ts';
import { addOutfitMaterials, buildOutfit } from './outfit.ts';
import { seatInfluences, seatRings } from './seat.ts';
import { Rig, SIDES, sideSign, type JointSpec, type Side } from './rig.ts';
import { writeSkinnedScene } from './scene.ts';

/**
 * The default built-in model: a stylised humanoid, 1.8 m tall, Y up, facing
 * +Z (so its left is +X), standing in an A-pose with the arms 50° below
 * horizontal. 20 joints; the body here (shirt, trousers, skin) dressed by
 * outfit.ts (face, hair, hands, belt, shoes): eight primitives of eight
 * materials sharing one skin; and three clips: Walk (the Root travels forward
 * along +Z, WALK_STRIDE per loop, for root motion to extract), Idle and Wave.
 * The VRM avatars (vrm-avatar.ts) build on the same joints, body and clips.
 */

const ARM_DROP_DEG = 50;
const UPPER_ARM = 0.28;
const LOWER_ARM = 0.26;
const HAND = 0.16;
const HIP_Y = 0.95;
const LEG_X = 0.095;
/** The hip joints' height. */
const LEG_TOP = 0.92;
const UPPER_LEG = 0.42;
const LOWER_LEG = 0.42;
const FPS = 30;
/**
 * Metres the Walk's Root travels along +Z per one-second loop (two steps). The legs swing
 * ±25° on 0.84 m: each foot sweeps 2 · 0.84 · sin 25° ≈ 0.71 m under the body per step, so
 * a planted foot keeps roughly still on the ground; 1.4 m/s is an ordinary walking pace.
 */
export const WALK_STRIDE = 1.4;
/** Walk and Idle lower the arms from the A-pose towards the body (model Z rotation, signed per side). */
const ARMS_DOWN_DEG = 25;

const X = [1, 0, 0] as const;
const Y = [0, 1, 0] as const;
const Z = [0, 0, 1] as const;


/** The character's joints (the VRM avatar, vrm-avatar.ts, appends its own after these). */
export function jointSpecs(): JointSpec[] {
  const specs: JointSpec[] = [
    { name: 'Root', parent: -1, head: [0, 0, 0], dir: Y },
    { name: 'Hips', parent: 0, head: [0, HIP_Y, 0], dir: Y },
    { name: 'Spine', parent: 1, head: [0, 1.07, 0], dir: Y },
    { name: 'Chest', parent: 2, head: [0, 1.24, 0], dir: Y },
    { name: 'Neck', parent: 3, head: [0, 1.46, 0], dir: Y },
    { name: 'Head', parent: 4, head: [0, 1.56, 0], dir: Y },
  ];
  const drop = (ARM_DROP_DEG * Math.PI) / 180;
  for (const side of SIDES) {
    const s = sideSign(side);
    const shoulder = specs.length;
    const dir = [s * Math.cos(drop), -Math.sin(drop), 0] as const;
    const at = (d: number) => [s * 0.17 + dir[0] * d, 1.4 + dir[1] * d, 0] as const;
    specs.push(
      { name: `Shoulder.${side}`, parent: 3, head: [s * 0.03, 1.4, 0], dir: [s, 0, 0] },
      { name: `UpperArm.${side}`, parent: shoulder, head: at(0), dir },
      { name: `LowerArm.${side}`, parent: shoulder + 1, head: at(UPPER_ARM), dir },
      { name: `Hand.${side}`, parent: shoulder + 2, head: at(UPPER_ARM + LOWER_ARM), dir },
    );
  }
  for (const side of SIDES) {
    const x = sideSign(side) * LEG_X;
    const upper = specs.length;
    const top = LEG_TOP;
    specs.push(
      { name: `UpperLeg.${side}`, parent: 1, head: [x, top, 0], dir: [0, -1, 0] },
      { name: `LowerLeg.${side}`, parent: upper, head: [x, top - UPPER_LEG, 0], dir: [0, -1, 0] },
      // Forward hint -Y keeps the foot's local X along model +X, like the legs' hinge.
      { name: `Foot.${side}`, parent: upper + 1, head: [x, top - UPPER_LEG - LOWER_LEG, 0], dir: Z, forward: [0, -1, 0] },
    );
  }
  return specs;
}


/**
 * Where a leg's weights pass from the Hips to its UpperLeg: ±LEG_BLEND about LEG_KNOT below the hip
 * joint. Below the joint rather than at it, so that the trousers under the belt's lower edge (2 cm
 * above the joint, and rigid on the Hips) are the Hips' alone. The seat (seat.ts) over the legs'
 * tops blends between the same heights, so a stride moves it with the thighs it covers.
 */
const LEG_KNOT = 0.03;
const LEG_BLEND = 0.05;

/** Segments round the torso's lathe. */
const TORSO_SEGMENTS = 28;
/**
 * Segments round the seat for each of the torso's: each thigh's outline takes half of them,
 * seen from the middle, and at 28 its outer side was a row of 5 mm scallops where the legs come
 * out. A multiple, so that every vertex of the shirt's bottom ring is one of the seat's top ring's
 * (the seat's others lie on the same ellipse, less than a millimetre out, under the belt).
 */
const SEAT_SEGMENTS_PER_TORSO_SEGMENT = 2;

/** The base body's neck radius, metres. */
const NECK_RADIUS = 0.046;

/** The torso's skin weights along its height: Hips → Spine → Chest → Neck. */
export function torsoInfluences(rig: Rig) {
  const j = (name: string) => rig.index(name);
  return chainInfluences([j('Hips'), j('Spine'), j('Chest'), j('Neck')], [1.07, 1.24, 1.47], [0.07, 0.08, 0.03]);
}

export interface BodyOptions {
  /** The dark eyes (the VRM avatar has moving ones, the dressed character its own). */
  eyes?: boolean;
  /** The flat mitten hands (the dressed character has fingered ones). */
  hands?: boolean;
  /** The one-piece dark shoes (the dressed character has uppers and soles). */
  shoes?: boolean;
  /** Where the shirt ends: the torso below this height (one of TORSO_RINGS') is trousers. Absent: all shirt. */
  waistline?: number;
  /** The neck's radius, metres. */
  neckRadius?: number;
  /** The surface over the joints: torso, sleeves, trousers and head profiles. */
  figure?: Figure;
}

/** The body's four meshes: shirt, trousers, skin and dark (shoes and eyes), each part as `options` says. */
export function buildMeshes(rig: Rig, { eyes = true, hands = true, shoes = true, waistline, neckRadius = NECK_RADIUS, figure = BASE_FIGURE }: BodyOptions = {}) {
  const j = (name: string) => rig.index(name);
  const shirt = new MeshData();
  const trousers = new MeshData();
  const skin = new MeshData();
  const dark = new MeshData();

  // Torso: an elliptical lathe from crotch to neck base, Hips → Spine → Chest → Neck; split in two at the
  // waistline (both halves share the ring there, so the surface stays closed). A figure with a seat
  // starts it there: the bottom turns into the thighs and follows them (seat.ts).
  const torsoRings = figure.seat
    ? [...seatRings(figure.seat.rings, { x: LEG_X, top: LEG_TOP, rings: figure.seat.thigh }, figure.seat.poleH, figure.seat.poleDz), ...figure.torso]
    : figure.torso;
  const influences = figure.seat
    ? seatInfluences(torsoInfluences(rig), { left: j('UpperLeg.L'), right: j('UpperLeg.R') }, LEG_TOP - LEG_KNOT - LEG_BLEND, LEG_TOP - LEG_KNOT + LEG_BLEND)
    : torsoInfluences(rig);
  const torso = { frame: frameAlong([0, 0, 0], Y), segments: TORSO_SEGMENTS, influences };
  if (waistline === undefined) {
    addLathe(shirt, { ...torso, rings: torsoRings });
  } else {
    const split = torsoRings.findIndex((r) => r.h === waistline);
    if (split <= 0) throw new Error(`waistline ${waistline} is not one of the torso's inner ring heights`);
    const segments = figure.seat ? SEAT_SEGMENTS_PER_TORSO_SEGMENT * TORSO_SEGMENTS : TORSO_SEGMENTS;
    addLathe(trousers, { ...torso, segments, rings: torsoRings.slice(0, split + 1) });
    addLathe(shirt, { ...torso, rings: torsoRings.slice(split) });
  }

  // Neck: an open tube whose ends hide inside the torso and the head.
  const neck = neckRadius / NECK_RADIUS; // exactly 1 by default, so the default neck is the same bytes
  addLathe(skin, {
    frame: frameAlong([0, 0, 0], Y),
    segments: 16,
    rings: [ring(1.4, 0.05 * neck), ring(1.46, 0.048 * neck), ring(1.52, 0.046 * neck), ring(1.58, 0.046 * neck), ring(1.64, 0.046 * neck)],
    influences: chainInfluences([j('Chest'), j('Neck'), j('Head')], [1.46, 1.57], [0.03, 0.04]),
  });
  addLathe(skin, {
    frame: frameAlong([0, 1.7, 0.01], Y),
    segments: 24,
    rings: figure.head,
    influences: rigid(j('Head')),
  });
  // Nose and eyes make the facing direction obvious in the demo.
  addLathe(skin, {
    frame: frameAlong([0, 1.69, 0.115], Z, [0, -1, 0]),
    segments: 12,
    rings: ellipsoidRings(0.02, 0.035, 0.02, 7),
    influences: rigid(j('Head')),
  });
  for (const side of eyes ? SIDES : []) {
    addLathe(dark, {
      frame: frameAlong([sideSign(side) * 0.038, 1.725, 0.1], Z, [0, -1, 0]),
      segments: 12,
      rings: ellipsoidRings(0.02, 0.02, 0.02, 9),
      influences: rigid(j('Head')),
    });
  }

  for (const side of SIDES) {
    // Right-side parts mirror their UVs, as artists do with symmetric
    // textures, so the model carries both tangent handednesses (w = ±1).
    const uv = side === 'L' ? ([0, 0, 1, 1] as const) : ([1, 0, 0, 1] as const);
    const upperArm = j(`UpperArm.${side}`);
    const wrist = UPPER_ARM + LOWER_ARM;
    addLathe(shirt, {
      frame: rig.frame(upperArm),
      segments: 20,
      uv,
      rings: capsuleRings(figure.arm.rings, figure.arm.capStart, figure.arm.capEnd),
      influences: chainInfluences(
        [j(`Shoulder.${side}`), upperArm, j(`LowerArm.${side}`), j(`Hand.${side}`)],
        [0.02, UPPER_ARM, wrist],
        [0.05, 0.06, 0.03],
      ),
    });
    // The hand is flat: thin along the bone frame's x (towards the thigh), wide along z.
    if (hands) addLathe(skin, {
      frame: rig.frame(j(`Hand.${side}`)),
      segments: 16,
      uv,
      rings: capsuleRings(
        [ring(0, 0.017, 0.035), ring(0.04, 0.02, 0.045), ring(0.09, 0.018, 0.045), ring(0.13, 0.016, 0.038)],
        0.02,
        HAND - 0.13,
        3,
      ),
      influences: chainInfluences([j(`LowerArm.${side}`), j(`Hand.${side}`)], [0], [0.02]),
    });

    const upperLeg = j(`UpperLeg.${side}`);
    const ankle = UPPER_LEG + LOWER_LEG;
    addLathe(trousers, {
      frame: rig.frame(upperLeg),
      segments: 20,
      uv,
      rings: capsuleRings(figure.leg.rings, figure.leg.capStart, figure.leg.capEnd),
      influences: chainInfluences(
        [j('Hips'), upperLeg, j(`LowerLeg.${side}`), j(`Foot.${side}`)],
        figure.seat ? [LEG_KNOT, UPPER_LEG, ankle] : [0, UPPER_LEG, ankle],
        figure.seat ? [LEG_BLEND, 0.06, 0.03] : [0.06, 0.06, 0.03],
      ),
    });
    // Shoe: along the foot bone (+Z), x = width, z = height (the foot frame's z points down).
    if (shoes) addLathe(dark, {
      frame: rig.frame(j(`Foot.${side}`), [0, -0.035, -0.05]),
      segments: 20,
      uv,
      rings: capsuleRings(
        [ring(0.03, 0.045, 0.042), ring(0.08, 0.05, 0.045), ring(0.15, 0.052, 0.04), ring(0.2, 0.045, 0.032)],
        0.03,
        0.035,
      ),
      influences: rigid(j(`Foot.${side}`)),
    });
  }
  return { shirt, trousers, skin, dark };
}

/** Walk, Idle and Wave on the character's joints. */
export function characterClips(rig: Rig): ClipSpec[] {
  const j = (name: string) => rig.index(name);
  const root = j('Root');
  const restRoot = rig.restT(root);
  const hips = j('Hips');
  const restHips = rig.restT(hips);
  const rot = (joint: number, ...deltas: [axis: readonly [number, number, number], degrees: number][]) =>
    rig.pose(joint, ...deltas.map(([axis, deg]) => rig.modelDelta(joint, axis, deg)));
  const TAU = 2 * Math.PI;

  // Walk: one stride per second, travelling forward. Legs swing about model X (negative
  // = forward), knees bend during each leg's swing phase, arms counter-swing.
  const walkT = 1;
  const phase = (t: number) => (TAU * t) / walkT;
  // Knee flexion peaks early in the swing phase, while the foot is still behind.
  const kneeBend = (t: number, side: Side) => {
    const c = Math.max(0, sideSign(side) * Math.cos(phase(t) + 0.5));
    return 5 + 40 * c * c;
  };
  const legSwing = (t: number, side: Side) => -sideSign(side) * 25 * Math.sin(phase(t));
  const walk: ClipSpec = {
    name: 'Walk',
    duration: walkT,
    fps: FPS,
    loop: true,
    tracks: [
      // The Root carries the body forward at a constant pace; root motion extraction takes it
      // out again when the character should walk through a scene instead of in place.
      { joint: root, path: 'translation', at: (t) => [restRoot[0], restRoot[1], restRoot[2] + (WALK_STRIDE * t) / walkT], travels: true },
      {
        joint: hips,
        path: 'translation',
        // Lowest when the legs are spread, a slight sway over the stance leg.
        at: (t) => [restHips[0] + 0.012 * Math.cos(phase(t)), restHips[1] - 0.01 * (1 - Math.cos(2 * phase(t))), restHips[2]],
      },
      { joint: hips, path: 'rotation', at: (t) => rot(hips, [Y, 6 * Math.sin(phase(t))], [Z, 2 * Math.cos(phase(t))]) },
      { joint: j('Chest'), path: 'rotation', at: (t) => rot(j('Chest'), [Y, -9 * Math.sin(phase(t))]) },
      { joint: j('Head'), path: 'rotation', at: (t) => rot(j('Head'), [Y, 3 * Math.sin(phase(t))]) },
      ...SIDES.flatMap((side) => [
        { joint: j(`UpperLeg.${side}`), path: 'rotation' as const, at: (t: number) => rot(j(`UpperLeg.${side}`), [X, legSwing(t, side)]) },
        { joint: j(`LowerLeg.${side}`), path: 'rotation' as const, at: (t: number) => rot(j(`LowerLeg.${side}`), [X, kneeBend(t, side)]) },
        {
          joint: j(`Foot.${side}`),
          path: 'rotation' as const,
          // Roughly cancel the leg's pitch so the sole stays near level.
          at: (t: number) => rot(j(`Foot.${side}`), [X, -0.8 * (legSwing(t, side) + kneeBend(t, side))]),
        },
        {
          joint: j(`UpperArm.${side}`),
          path: 'rotation' as const,
          at: (t: number) => rot(j(`UpperArm.${side}`), [X, sideSign(side) * 20 * Math.sin(phase(t))], [Z, -sideSign(side) * ARMS_DOWN_DEG]),
        },
        {
          joint: j(`LowerArm.${side}`),
          path: 'rotation' as const,
          // Elbows flex forward about their own x axis, more on the forward swing.
          at: (t: number) => rig.pose(j(`LowerArm.${side}`), rig.localDelta(0, 15 + 10 * sideSign(side) * -Math.sin(phase(t)))),
        },
      ]),
    ],
  };

  // Idle: a two-second breathing loop with a slow look around.
  const idleT = 2;
  const breathe = (t: number) => Math.sin((TAU * t) / idleT);
  const idle: ClipSpec = {
    name: 'Idle',
    duration: idleT,
    fps: FPS,
    loop: true,
    tracks: [
      { joint: hips, path: 'translation', at: (t) => [restHips[0], restHips[1] - 0.004 * (1 - Math.cos((TAU * t) / idleT)), restHips[2]] },
      { joint: j('Spine'), path: 'rotation', at: (t) => rot(j('Spine'), [X, 1 * breathe(t)]) },
      { joint: j('Chest'), path: 'rotation', at: (t) => rot(j('Chest'), [X, 1.5 * breathe(t)]) },
      { joint: j('Head'), path: 'rotation', at: (t) => rot(j('Head'), [Y, 8 * breathe(t)], [X, 3 * Math.cos((TAU * t) / idleT)]) },
      ...SIDES.flatMap((side) => [
        { joint: j(`UpperArm.${side}`), path: 'rotation' as const, at: (t: number) => rot(j(`UpperArm.${side}`), [Z, sideSign(side) * (3 * breathe(t) - ARMS_DOWN_DEG)]) },
        { joint: j(`LowerArm.${side}`), path: 'rotation' as const, at: (t: number) => rig.pose(j(`LowerArm.${side}`), rig.localDelta(0, 10 + 2 * breathe(t))) },
      ]),
    ],
  };

  // Wave: raise the right arm to the side, forearm up, wave three times, lower.
  const waveT = 2.5;
  const env = (t: number) => smoothstep(0, 0.5, t) * (1 - smoothstep(2, 2.5, t));
  const wag = (t: number) => Math.sin(TAU * 1.5 * Math.max(0, t - 0.5)) * env(t);
  const wave: ClipSpec = {
    name: 'Wave',
    duration: waveT,
    fps: FPS,
    loop: false,
    tracks: [
      // Model Z, negative, turns the right arm (pointing -X) upward.
      { joint: j('UpperArm.R'), path: 'rotation', at: (t) => rot(j('UpperArm.R'), [Z, -70 * env(t)], [X, -15 * env(t)]) },
      { joint: j('LowerArm.R'), path: 'rotation', at: (t) => rot(j('LowerArm.R'), [Z, -80 * env(t) + 25 * wag(t)]) },
      { joint: j('Hand.R'), path: 'rotation', at: (t) => rot(j('Hand.R'), [Z, 15 * wag(t)]) },
      { joint: j('Head'), path: 'rotation', at: (t) => rot(j('Head'), [Y, -12 * env(t)]) },
      { joint: j('Chest'), path: 'rotation', at: (t) => rot(j('Chest'), [Z, 3 * env(t)]) },
    ],
  };
  return [walk, idle, wave];
}

/** The character's materials, by the mesh they colour. */
export function addCharacterMaterials(b: GltfBuilder) {
  const material = (name: string, color: [number, number, number], roughness: number) =>
    b.addMaterial({ name, pbrMetallicRoughness: { baseColorFactor: [...color, 1], metallicFactor: 0, roughnessFactor: roughness } });
  return {
    shirt: material('Shirt', [0.12, 0.3, 0.62], 0.85),
    trousers: material('Trousers', [0.16, 0.16, 0.2], 0.9),
    skin: material('Skin', [0.9, 0.62, 0.47], 0.6),
    dark: material('Shoes', [0.04, 0.035, 0.03], 0.4),
  };
}

/** The dressed character's neck (the base body's is thinner) and where its shirt meets its jeans (a torso ring). */
const CHARACTER_NECK_RADIUS = 0.052;
const CHARACTER_WAISTLINE = 0.95;

export function buildCharacter(): GltfBuilder {
  const rig = new Rig(jointSpecs());
  const b = new GltfBuilder('skinned-mesh-webgpu builtin character');
  const mats = addOutfitMaterials(b);
  const body = buildMeshes(rig, {
    eyes: false, hands: false, shoes: false, waistline: CHARACTER_WAISTLINE, neckRadius: CHARACTER_NECK_RADIUS, figure: CHARACTER_FIGURE,
  });
  const outfit = buildOutfit(rig, body.shirt, body.skin, torsoInfluences(rig));
  const meshes = { shirt: body.shirt, trousers: body.trousers, skin: body.skin, ...outfit };
  // The head (face, hair, ears) and the hands larger than the mannequin's; the joints stay where they are.
  for (const mesh of Object.values(meshes)) {
    scaleJointPart(mesh, rig.index('Head'), CHARACTER_HEAD_PIVOT, CHARACTER_HEAD_SCALE);
    for (const side of SIDES) scaleJointPart(mesh, rig.index(`Hand.${side}`), rig.headOf(rig.index(`Hand.${side}`)), CHARACTER_HAND_SCALE);
  }
  const primitives = (['shirt', 'trousers', 'skin', 'hair', 'leather', 'sole', 'eyes', 'metal'] as const).map((k) =>
    writePrimitive(b, meshes[k], { material: mats[k], jointComponent: 'u8' }),
  );
  const mesh = b.addMesh({ name: 'Character', primitives });

  const jointNodes = writeSkinnedScene(b, rig, { name: 'Character', mesh });
  for (const clip of characterClips(rig)) addClip(b, jointNodes, clip);
  return b;
}
