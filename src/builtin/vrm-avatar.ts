import { BufferTarget } from '../gltf/constants.ts';
import { GltfBuilder } from '../gltf/builder.ts';
import { addMToon10, mtoon0Properties } from './avatar-mtoon.ts';
import { addCharacterMaterials, buildMeshes, characterClips, jointSpecs } from './character.ts';
import { addClip } from './clips.ts';
import { MeshData, addLathe, chainInfluences, ellipsoidRings, frameAlong, rigid, writePrimitive, type Ring } from './geometry.ts';
import { Rig, type JointSpec } from './rig.ts';
import { writeSkinnedScene } from './scene.ts';

/**
 * The built-in VRM avatar: the built-in character with what makes a VRM — a ponytail and two
 * side locks and a four-flap skirt on spring bones with head, back, hip and leg colliders;
 * eyes on their own joints for look-at; a face mesh whose morph targets (mouth shapes, smile,
 * frown, each eyelid) back the preset expressions, plus colour binds (angry reddens the skin
 * and its toon shade, a custom "blush" lights it); the humanoid map; MToon materials with
 * outlines, rim light and shade colours (avatar-mtoon.ts). `vrm-avatar` is VRM 1.0 (VRMC_vrm,
 * VRMC_springBone, VRMC_materials_mtoon); `vrm0-avatar` is the same avatar as a VRM 0.x file
 * (`extensions.VRM`, facing −Z as 0.x models do, with MToon `materialProperties`). Both keep
 * the character's Walk, Idle and Wave clips.
 */

const X = [1, 0, 0] as const;
const Z = [0, 0, 1] as const;
type V3 = readonly [number, number, number];

/** Chains the avatar adds to the character's joints: name prefix, parent joint, start, direction, segment lengths. */
const CHAINS: readonly { name: string; parent: string; start: V3; dir: V3; segments: readonly number[]; radius: number }[] = [
  { name: 'HairBack', parent: 'Head', start: [0, 1.76, -0.1], dir: [0, -1, -0.35], segments: [0.09, 0.09, 0.09, 0.08], radius: 0.035 },
  { name: 'HairSide.L', parent: 'Head', start: [0.1, 1.73, 0.03], dir: [0.15, -1, 0.05], segments: [0.07, 0.07, 0.06], radius: 0.022 },
  { name: 'HairSide.R', parent: 'Head', start: [-0.1, 1.73, 0.03], dir: [-0.15, -1, 0.05], segments: [0.07, 0.07, 0.06], radius: 0.022 },
  { name: 'Skirt.F', parent: 'Hips', start: [0, 0.98, 0.12], dir: [0, -1, 0.35], segments: [0.1, 0.1, 0.09], radius: 0.05 },
  { name: 'Skirt.B', parent: 'Hips', start: [0, 0.98, -0.12], dir: [0, -1, -0.35], segments: [0.1, 0.1, 0.09], radius: 0.05 },
  { name: 'Skirt.L', parent: 'Hips', start: [0.16, 0.98, 0], dir: [0.35, -1, 0], segments: [0.1, 0.1, 0.09], radius: 0.05 },
  { name: 'Skirt.R', parent: 'Hips', start: [-0.16, 0.98, 0], dir: [-0.35, -1, 0], segments: [0.1, 0.1, 0.09], radius: 0.05 },
];

const EYE_Y = 1.725, EYE_X = 0.038, EYE_Z = 0.09, EYE_R = 0.022;
/** How far above the eye an open lid sits (a closed one covers the eye). */
const LID_RAISE = EYE_R * 2.1;

/** Face morph targets, in target order. */
const FACE_TARGETS = ['aa', 'ih', 'ou', 'ee', 'oh', 'smile', 'frown', 'blinkL', 'blinkR'] as const;
type FaceTarget = (typeof FACE_TARGETS)[number];

/** VRM 1.0 preset expressions: morph targets and weights, and the few extra settings they have. */
const EXPRESSIONS: readonly { name: string; v0: string; morphs: readonly [FaceTarget, number][]; overrideBlink?: 'blend' | 'block' }[] = [
  { name: 'aa', v0: 'a', morphs: [['aa', 1]] },
  { name: 'ih', v0: 'i', morphs: [['ih', 1]] },
  { name: 'ou', v0: 'u', morphs: [['ou', 1]] },
  { name: 'ee', v0: 'e', morphs: [['ee', 1]] },
  { name: 'oh', v0: 'o', morphs: [['oh', 1]] },
  { name: 'happy', v0: 'joy', morphs: [['smile', 1], ['blinkL', 0.35], ['blinkR', 0.35]], overrideBlink: 'blend' },
  { name: 'angry', v0: 'angry', morphs: [['frown', 1]] },
  { name: 'sad', v0: 'sorrow', morphs: [['frown', 0.6], ['blinkL', 0.2], ['blinkR', 0.2]] },
  { name: 'relaxed', v0: 'fun', morphs: [['smile', 0.5], ['blinkL', 0.5], ['blinkR', 0.5]], overrideBlink: 'block' },
  { name: 'surprised', v0: 'surprised', morphs: [['oh', 1]] },
  { name: 'blink', v0: 'blink', morphs: [['blinkL', 1], ['blinkR', 1]] },
  { name: 'blinkLeft', v0: 'blink_l', morphs: [['blinkL', 1]] },
  { name: 'blinkRight', v0: 'blink_r', morphs: [['blinkR', 1]] },
];

/** glTF humanoid bones (VRM names) of the character's joints. */
const HUMANOID: Readonly<Record<string, string>> = {
  hips: 'Hips', spine: 'Spine', chest: 'Chest', neck: 'Neck', head: 'Head', leftEye: 'Eye.L', rightEye: 'Eye.R',
  leftShoulder: 'Shoulder.L', leftUpperArm: 'UpperArm.L', leftLowerArm: 'LowerArm.L', leftHand: 'Hand.L',
  rightShoulder: 'Shoulder.R', rightUpperArm: 'UpperArm.R', rightLowerArm: 'LowerArm.R', rightHand: 'Hand.R',
  leftUpperLeg: 'UpperLeg.L', leftLowerLeg: 'LowerLeg.L', leftFoot: 'Foot.L',
  rightUpperLeg: 'UpperLeg.R', rightLowerLeg: 'LowerLeg.R', rightFoot: 'Foot.R',
};

function avatarJointSpecs(): JointSpec[] {
  const specs = jointSpecs();
  const index = (name: string) => specs.findIndex((s) => s.name === name);
  for (const side of ['L', 'R'] as const) {
    specs.push({ name: `Eye.${side}`, parent: index('Head'), head: [(side === 'L' ? 1 : -1) * EYE_X, EYE_Y, EYE_Z], dir: Z, forward: [0, -1, 0] });
  }
  for (const c of CHAINS) {
    const len = Math.hypot(...c.dir);
    const d = [c.dir[0] / len, c.dir[1] / len, c.dir[2] / len] as const;
    let at = c.start, parent = index(c.parent);
    // One joint per segment plus the end, so every segment has a tail node (VRM 1.0).
    for (let k = 0; k <= c.segments.length; k++) {
      const name = k < c.segments.length ? `${c.name}${k}` : `${c.name}End`;
      specs.push({ name, parent, head: at, dir: d, forward: Math.abs(d[2]) > 0.9 ? X : Z });
      parent = specs.length - 1;
      if (k < c.segments.length) at = [at[0] + d[0] * c.segments[k], at[1] + d[1] * c.segments[k], at[2] + d[2] * c.segments[k]];
    }
  }
  return specs;
}

/** Hair locks and skirt flaps, each a lathe along its chain. */
function addChainMeshes(rig: Rig, hair: MeshData, skirt: MeshData): void {
  for (const c of CHAINS) {
    const joints = c.segments.map((_, k) => rig.index(`${c.name}${k}`));
    const total = c.segments.reduce((a, b) => a + b, 0);
    const knots: number[] = [];
    c.segments.slice(0, -1).reduce((sum, s) => (knots.push(sum + s), sum + s), 0);
    const flap = c.name.startsWith('Skirt');
    const r = c.radius;
    const rings: Ring[] = [
      { h: -0.01, rx: 0, rz: 0 }, { h: 0, rx: r * 0.8, rz: flap ? r * 0.25 : r * 0.8 },
      { h: total * 0.5, rx: r, rz: flap ? r * 0.3 : r }, { h: total * 0.9, rx: r * (flap ? 1.3 : 0.6), rz: flap ? r * 0.3 : r * 0.6 },
      { h: total, rx: 0, rz: 0 },
    ];
    addLathe(flap ? skirt : hair, {
      frame: rig.frame(joints[0]),
      segments: 12,
      rings,
      influences: chainInfluences(joints, knots, knots.map(() => 0.03)),
    });
  }
}

/** Eyeballs (white) and pupils (dark), each rigid on its eye joint so look-at turns them. */
function addEyes(rig: Rig, whites: MeshData, pupils: MeshData): void {
  for (const side of ['L', 'R'] as const) {
    const x = (side === 'L' ? 1 : -1) * EYE_X;
    const eye = rig.index(`Eye.${side}`);
    addLathe(whites, { frame: frameAlong([x, EYE_Y, EYE_Z], Z, [0, -1, 0]), segments: 14, rings: ellipsoidRings(EYE_R, EYE_R, EYE_R, 9), influences: rigid(eye) });
    addLathe(pupils, {
      frame: frameAlong([x, EYE_Y, EYE_Z + EYE_R * 0.82], Z, [0, -1, 0]), segments: 10, rings: ellipsoidRings(0.009, 0.006, 0.009, 7), influences: rigid(eye),
    });
  }
}

/**
 * The face: a mouth and two eyelids on the head, one primitive, with a POSITION morph target
 * per FACE_TARGETS entry. Each target moves only its part's vertices.
 */
function faceMesh(rig: Rig): { mesh: MeshData; targets: Float32Array[] } {
  const mesh = new MeshData();
  const head = rigid(rig.index('Head'));
  const parts: { from: number; to: number; kind: 'mouth' | 'lidL' | 'lidR' }[] = [];
  const mark = (kind: 'mouth' | 'lidL' | 'lidR', add: () => void) => {
    const from = mesh.vertexCount;
    add();
    parts.push({ from, to: mesh.vertexCount, kind });
  };
  const mouth = [0, 1.645, 0.108] as const;
  mark('mouth', () => addLathe(mesh, { frame: frameAlong(mouth, Z, [0, -1, 0]), segments: 16, rings: ellipsoidRings(0.03, 0.008, 0.008, 7), influences: head }));
  for (const side of ['L', 'R'] as const) {
    const x = (side === 'L' ? 1 : -1) * EYE_X;
    // A lid: a shell as big as the eyeball, above it (a brow) when open, over it when closed.
    mark(side === 'L' ? 'lidL' : 'lidR', () => addLathe(mesh, {
      frame: frameAlong([x, EYE_Y + LID_RAISE, EYE_Z + 0.003], Z, [0, -1, 0]), segments: 12, rings: ellipsoidRings(EYE_R * 1.15, EYE_R * 1.05, EYE_R * 1.05, 9), influences: head,
    }));
  }
  const P = mesh.positions;
  const targets = FACE_TARGETS.map((target) => {
    const d = new Float32Array(P.length);
    for (const part of parts) {
      for (let v = part.from; v < part.to; v++) {
        const x = P[v * 3] - (part.kind === 'mouth' ? mouth[0] : 0), y = P[v * 3 + 1] - (part.kind === 'mouth' ? mouth[1] : 0);
        const o = v * 3;
        if (part.kind === 'mouth') {
          const corner = (x / 0.03) ** 2;
          if (target === 'aa') d[o + 1] = y * 2.5;
          if (target === 'ih') { d[o] = x * 0.3; d[o + 1] = y * 0.6; }
          if (target === 'ou') { d[o] = -x * 0.5; d[o + 1] = y * 0.8; }
          if (target === 'ee') { d[o] = x * 0.4; d[o + 1] = y * 0.2; }
          if (target === 'oh') { d[o] = -x * 0.3; d[o + 1] = y * 2; }
          if (target === 'smile') d[o + 1] = 0.012 * corner;
          if (target === 'frown') d[o + 1] = -0.01 * corner;
        } else if ((target === 'blinkL' && part.kind === 'lidL') || (target === 'blinkR' && part.kind === 'lidR')) {
          // Down over the eye.
          d[o + 1] = -LID_RAISE;
        }
      }
    }
    return d;
  });
  return { mesh, targets };
}

interface AvatarParts {
  readonly b: GltfBuilder;
  readonly rig: Rig;
  readonly jointNodes: number[];
  readonly faceMeshIndex: number;
  readonly faceNode: number;
  readonly materials: Readonly<Record<string, number>>;
  readonly rootNode: number;
}


/** x and z negated: a half turn about Y, what a VRM 0.x exporter bakes into the model. */
const halfTurn = (v: number[], stride: number): void => {
  for (let i = 0; i < v.length; i += stride) { v[i] = -v[i]; v[i + 2] = -v[i + 2]; }
};

/**
 * The parts of both avatars. `turned` bakes a half turn about Y into the model (VRM 0.x faces
 * −Z): vertices, normals and morph deltas turned, the Root joint turned at rest and on its
 * Walk track, the inverse bind matrices matching; every other joint's local transform is the same.
 */
function buildAvatarParts(generator: string, turned = false): AvatarParts {
  const rig = new Rig(avatarJointSpecs());
  const b = new GltfBuilder(generator);
  const mats = addCharacterMaterials(b);
  const material = (name: string, color: [number, number, number], roughness: number) =>
    b.addMaterial({ name, pbrMetallicRoughness: { baseColorFactor: [...color, 1], metallicFactor: 0, roughnessFactor: roughness } });
  const materials = {
    ...mats, hair: material('Hair', [0.35, 0.18, 0.45], 0.7), eyeWhite: material('EyeWhite', [0.95, 0.95, 0.95], 0.3), skirt: material('Skirt', [0.75, 0.2, 0.3], 0.8),
    // The face's own material (the skin's colour), so colour binds name each material once.
    face: material('Face', [0.9, 0.62, 0.47], 0.6),
  };
  const body = buildMeshes(rig, { eyes: false });
  const hair = new MeshData(), skirt = new MeshData(), whites = new MeshData();
  addChainMeshes(rig, hair, skirt);
  addEyes(rig, whites, body.dark);
  const face = faceMesh(rig);
  if (turned) {
    for (const m of [body.shirt, body.trousers, body.skin, body.dark, hair, skirt, whites, face.mesh]) {
      halfTurn(m.positions, 3);
      halfTurn(m.normals, 3);
    }
    for (const t of face.targets) halfTurn(t as unknown as number[], 3);
  }
  const primitives = ([
    [body.shirt, materials.shirt], [body.trousers, materials.trousers], [body.skin, materials.skin], [body.dark, materials.dark],
    [hair, materials.hair], [skirt, materials.skirt], [whites, materials.eyeWhite], [face.mesh, materials.face],
  ] as const).map(([mesh, m]) => writePrimitive(b, mesh, { material: m, jointComponent: 'u8' }));
  // Every primitive of a mesh has the same morph targets: the face's move its vertices, the
  // others' are accessors without a bufferView (all zeros, no bytes).
  primitives.forEach((prim, i) => {
    const count = b.json.accessors[prim.attributes.POSITION].count;
    prim.targets = FACE_TARGETS.map((_, t) => ({
      POSITION: i === primitives.length - 1
        ? b.addAccessor(face.targets[t], 'VEC3', { target: BufferTarget.ARRAY_BUFFER, minMax: true })
        : b.json.accessors.push({ componentType: 5126, count, type: 'VEC3', min: [0, 0, 0], max: [0, 0, 0] }) - 1,
    }));
  });
  const faceMeshIndex = b.addMesh({ name: 'Avatar', primitives, weights: FACE_TARGETS.map(() => 0), extras: { targetNames: [...FACE_TARGETS] } });
  // inverse(turn · global) = inverse(global) · turn (a half turn is its own inverse): columns 0 and 2 negated.
  const ibm = rig.inverseBindMatrices();
  if (turned) for (let j = 0; j < rig.count; j++) for (let k = 0; k < 4; k++) { ibm[j * 16 + k] = -ibm[j * 16 + k] || 0; ibm[j * 16 + 8 + k] = -ibm[j * 16 + 8 + k] || 0; }
  const jointNodes = writeSkinnedScene(b, rig, { name: 'Avatar', mesh: faceMeshIndex, inverseBindMatrices: ibm });
  const rootNode = b.json.scenes[0].nodes![0];
  const faceNode = b.json.nodes.length - 1;
  const rootJoint = rig.index('Root');
  if (turned) b.json.nodes[jointNodes[rootJoint]].rotation = [0, 1, 0, 0];
  for (const clip of characterClips(rig)) {
    if (turned) {
      for (const track of clip.tracks) {
        if (track.joint !== rootJoint || track.path !== 'translation') continue;
        const at = track.at;
        track.at = (t) => { const v = at(t); return [-v[0] || 0, v[1], -v[2] || 0]; };
      }
    }
    addClip(b, jointNodes, clip);
  }
  return { b, rig, jointNodes, faceMeshIndex, faceNode, materials, rootNode };
}

type Json = Record<string, unknown>;

/** The avatar's colliders: node name, shape, offset and tail in the node's space, radius. */
function colliders(p: AvatarParts): { node: number; offset: V3; tail?: V3; radius: number; group: 'head' | 'body' | 'legs' }[] {
  const n = (name: string) => p.jointNodes[p.rig.index(name)];
  return [
    { node: n('Head'), offset: [0, 0.14, 0.01], radius: 0.115, group: 'head' },
    { node: n('Chest'), offset: [0, -0.05, -0.03], tail: [0, 0.2, -0.03], radius: 0.13, group: 'body' },
    { node: n('Hips'), offset: [0, 0, 0], radius: 0.15, group: 'body' },
    { node: n('UpperLeg.L'), offset: [0, 0.02, 0], tail: [0, 0.4, 0], radius: 0.085, group: 'legs' },
    { node: n('UpperLeg.R'), offset: [0, 0.02, 0], tail: [0, 0.4, 0], radius: 0.085, group: 'legs' },
  ];
}

/** What `angry` turns the skin and its MToon shade to and what the custom `blush` lights it with (linear RGBA). */
const ANGRY = [1, 0.45, 0.4, 1];
const ANGRY_SHADE = [0.7, 0.12, 0.1, 1];
const BLUSH = [0.35, 0.02, 0.02, 1];

const SPRING_SETTINGS = {
  hair: { stiffness: 1.2, dragForce: 0.4, gravityPower: 0.6, hitRadius: 0.02 },
  skirt: { stiffness: 2, dragForce: 0.5, gravityPower: 0.3, hitRadius: 0.03 },
};

/** The built-in VRM 1.0 avatar. */
export function buildVrmAvatar(): GltfBuilder {
  const p = buildAvatarParts('skinned-mesh-webgpu builtin VRM avatar');
  const { b, rig, jointNodes } = p;
  const node = (name: string) => jointNodes[rig.index(name)];
  const json = b.json as unknown as Json & { extensionsUsed: string[] };
  json.extensionsUsed.push('VRMC_vrm', 'VRMC_springBone');
  addMToon10(b);
  const cols = colliders(p);
  const groups = ['head', 'body', 'legs'] as const;
  const faceBind = (t: FaceTarget, weight: number) => ({ node: p.faceNode, index: FACE_TARGETS.indexOf(t), weight });
  const preset: Json = {};
  for (const e of EXPRESSIONS) {
    preset[e.name] = {
      morphTargetBinds: e.morphs.map(([t, w]) => faceBind(t, w)),
      ...(e.name === 'angry' ? {
        materialColorBinds: [p.materials.skin, p.materials.face].flatMap((material) => [
          { material, type: 'color', targetValue: ANGRY }, { material, type: 'shadeColor', targetValue: ANGRY_SHADE },
        ]),
      } : {}),
      ...(e.overrideBlink ? { overrideBlink: e.overrideBlink } : {}),
    };
  }
  for (const look of ['lookUp', 'lookDown', 'lookLeft', 'lookRight']) preset[look] = {};
  json.extensions = {
    VRMC_vrm: {
      specVersion: '1.0',
      meta: {
        name: 'skinned-mesh-webgpu avatar', version: '1', authors: ['skinned-mesh-webgpu'], licenseUrl: 'https://vrm.dev/licenses/1.0/',
        avatarPermission: 'everyone', commercialUsage: 'corporation', allowRedistribution: true, modification: 'allowModificationRedistribution',
      },
      humanoid: { humanBones: Object.fromEntries(Object.entries(HUMANOID).map(([bone, joint]) => [bone, { node: node(joint) }])) },
      expressions: {
        preset,
        custom: { blush: { materialColorBinds: [p.materials.skin, p.materials.face].map((material) => ({ material, type: 'emissionColor', targetValue: BLUSH })) } },
      },
      lookAt: {
        type: 'bone', offsetFromHeadBone: [0, EYE_Y - rig.headOf(rig.index('Head'))[1], EYE_Z],
        rangeMapHorizontalInner: { inputMaxValue: 90, outputScale: 12 }, rangeMapHorizontalOuter: { inputMaxValue: 90, outputScale: 16 },
        rangeMapVerticalDown: { inputMaxValue: 90, outputScale: 10 }, rangeMapVerticalUp: { inputMaxValue: 90, outputScale: 12 },
      },
    },
    VRMC_springBone: {
      specVersion: '1.0',
      colliders: cols.map((c) => ({ node: c.node, shape: c.tail ? { capsule: { offset: c.offset, tail: c.tail, radius: c.radius } } : { sphere: { offset: c.offset, radius: c.radius } } })),
      colliderGroups: groups.map((g) => ({ name: g, colliders: cols.flatMap((c, i) => (c.group === g ? [i] : [])) })),
      springs: CHAINS.map((c) => {
        const hair = c.name.startsWith('Hair');
        const names = [...c.segments.map((_, k) => `${c.name}${k}`), `${c.name}End`];
        return {
          name: c.name,
          joints: names.map((n) => ({ node: node(n), ...(hair ? SPRING_SETTINGS.hair : SPRING_SETTINGS.skirt), gravityDir: [0, -1, 0] })),
          colliderGroups: hair ? [0, 1] : [1, 2],
          // No center: the tails keep their inertia in world space, so walking (root motion),
          // turning or dragging the avatar swings them, as VRoid's exports do. (With the chain's
          // parent as center they would ride along with it and ignore all of that.)
        };
      }),
    },
  };
  return b;
}

/**
 * The same avatar as a VRM 0.x file: the model turned to face −Z (a 180° turn on its root
 * node, where 0.x exporters bake it), blend-shape groups with 0.x preset names and 0–100
 * weights, `firstPerson` look-at, `secondaryAnimation` (collider offsets with z negated) and
 * MToon `materialProperties` for every material.
 */
export function buildVrm0Avatar(): GltfBuilder {
  const p = buildAvatarParts('skinned-mesh-webgpu builtin VRM 0.x avatar', true);
  const { b, rig, jointNodes } = p;
  const node = (name: string) => jointNodes[rig.index(name)];
  const json = b.json as unknown as Json & { extensionsUsed: string[] };
  json.extensionsUsed.push('VRM');
  const cols = colliders(p);
  const groupNodes = [...new Set(cols.map((c) => c.node))];
  const lookMap = (yRange: number) => ({ curve: [0, 0, 0, 1, 1, 1, 1, 0], xRange: 90, yRange });
  json.extensions = {
    VRM: {
      exporterVersion: 'skinned-mesh-webgpu', specVersion: '0.0',
      meta: { title: 'skinned-mesh-webgpu avatar (VRM 0.x)', version: '1', author: 'skinned-mesh-webgpu', licenseName: 'Other', otherLicenseUrl: 'https://vrm.dev/licenses/1.0/' },
      humanoid: { humanBones: Object.entries(HUMANOID).map(([bone, joint]) => ({ bone, node: node(joint), useDefaultValues: true })) },
      blendShapeMaster: {
        blendShapeGroups: [
          ...EXPRESSIONS.map((e) => ({
            name: e.v0, presetName: e.v0,
            binds: e.morphs.map(([t, w]) => ({ mesh: p.faceMeshIndex, index: FACE_TARGETS.indexOf(t), weight: w * 100 })),
            materialValues: e.name === 'angry' ? ['Skin', 'Face'].flatMap((materialName) => [
              { materialName, propertyName: '_Color', targetValue: ANGRY }, { materialName, propertyName: '_ShadeColor', targetValue: ANGRY_SHADE },
            ]) : [],
          })),
          { name: 'blush', presetName: 'unknown', binds: [], materialValues: ['Skin', 'Face'].map((materialName) => ({ materialName, propertyName: '_EmissionColor', targetValue: BLUSH })) },
        ],
      },
      firstPerson: {
        firstPersonBone: node('Head'),
        // 0.x stores z mirrored; three-vrm negates it back.
        firstPersonBoneOffset: { x: 0, y: EYE_Y - rig.headOf(rig.index('Head'))[1], z: -EYE_Z },
        lookAtTypeName: 'Bone',
        lookAtHorizontalInner: lookMap(12), lookAtHorizontalOuter: lookMap(16), lookAtVerticalDown: lookMap(10), lookAtVerticalUp: lookMap(12),
      },
      secondaryAnimation: {
        colliderGroups: groupNodes.map((n) => ({
          node: n,
          colliders: cols.filter((c) => c.node === n).flatMap((c) => {
            // 0.x has spheres only: a capsule becomes spheres along it.
            const points = c.tail ? [0, 0.5, 1].map((f) => c.offset.map((o, k) => o + (c.tail![k] - o) * f)) : [c.offset];
            return points.map((o) => ({ offset: { x: o[0], y: o[1], z: -o[2] }, radius: c.radius }));
          }),
        })),
        boneGroups: CHAINS.map((c) => {
          const hair = c.name.startsWith('Hair');
          const s = hair ? SPRING_SETTINGS.hair : SPRING_SETTINGS.skirt;
          const groupsFor = hair ? ['head', 'body'] : ['body', 'legs'];
          return {
            comment: c.name, stiffiness: s.stiffness, gravityPower: s.gravityPower, gravityDir: { x: 0, y: -1, z: 0 }, dragForce: s.dragForce, hitRadius: s.hitRadius,
            center: -1, bones: [node(`${c.name}0`)],
            colliderGroups: groupNodes.flatMap((n, i) => (cols.some((col) => col.node === n && groupsFor.includes(col.group)) ? [i] : [])),
          };
        }),
      },
      materialProperties: b.json.materials.map((m) => mtoon0Properties(m)),
    },
  };
  return b;
}
