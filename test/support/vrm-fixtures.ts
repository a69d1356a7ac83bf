/**
 * VRM fixtures written at test time: a small node tree (root → body → head, a hair chain on
 * the head, a skirt chain on the hips side, a leg with a capsule, a floor plane) with spring
 * bones in VRM 1.0 (VRMC_springBone + extended colliders) or VRM 0.x (secondaryAnimation)
 * form. The two forms describe the same motion: 0.x ends each chain with a 7 cm tail along
 * the last joint's offset, so the 1.0 form adds a tail node exactly there; 0.x stores
 * collider offsets with z negated.
 */
import { encodeGlb, GltfBuilder, type GltfNodeJson } from '../../src/gltf/builder.ts';
import { parseGlb } from '../../src/gltf/glb.ts';

type Vec3 = [number, number, number];
type Quat = [number, number, number, number];

export interface FixtureNode {
  name: string;
  parent: number;
  t: Vec3;
  r?: Quat;
  s?: Vec3;
}

export interface SpringFixtureOptions {
  readonly version: 0 | 1;
  /** Give the springs a center node (the body). */
  readonly center?: boolean;
  readonly colliders?: readonly ('sphere' | 'capsule' | 'plane' | 'insideSphere')[];
  readonly gravityPower?: number;
  readonly gravityDir?: Vec3;
  readonly dragForce?: number;
  readonly stiffness?: number;
  readonly hitRadius?: number;
  /** A scale on the head (the hair chain's parent): a parent frame that is not rigid. */
  readonly headScale?: Vec3;
}

const axisAngle = (axis: Vec3, deg: number): Quat => {
  const l = Math.hypot(...axis), h = (deg * Math.PI) / 360, s = Math.sin(h) / l;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(h)];
};

/** The node tree of the spring fixtures (0.x form: no extra tail nodes). */
export function springNodes(): FixtureNode[] {
  return [
    { name: 'root', parent: -1, t: [0, 0, 0] },
    { name: 'body', parent: 0, t: [0, 1, 0] },
    { name: 'head', parent: 1, t: [0, 0.5, 0], r: axisAngle([0, 1, 0], 10) },
    { name: 'hair0', parent: 2, t: [0.05, 0.12, -0.06], r: axisAngle([1, 0, 0.3], 160) },
    { name: 'hair1', parent: 3, t: [0, 0.1, 0.01], r: axisAngle([0, 0, 1], 15) },
    { name: 'hair2', parent: 4, t: [0.01, 0.09, 0], r: axisAngle([1, 0, 0], -20) },
    { name: 'hair3', parent: 5, t: [0, 0.08, -0.01] },
    { name: 'leg', parent: 1, t: [0.1, -0.2, 0], r: axisAngle([0, 0, 1], 180) },
    { name: 'skirt0', parent: 1, t: [0.12, -0.1, 0.05], r: axisAngle([0, 0, 1], 170) },
    { name: 'skirt1', parent: 8, t: [0, 0.15, 0] },
    { name: 'skirt2', parent: 9, t: [0.02, 0.12, 0.01], s: [1, 1.2, 1] },
  ];
}

/** Chains of the fixture as node indices (0.x form; the 1.0 form appends a tail node to each). */
export const HAIR = [3, 4, 5, 6];
export const SKIRT = [8, 9, 10];

/** Where a 0.x chain end's tail is: 7 cm along the node's own translation. */
function vrm0Tail(n: FixtureNode): Vec3 {
  const l = Math.hypot(...n.t);
  return [n.t[0] * 0.07 / l, n.t[1] * 0.07 / l, n.t[2] * 0.07 / l];
}

export function buildSpringFixture(o: SpringFixtureOptions): Uint8Array {
  const nodes = springNodes();
  if (o.headScale) nodes[2] = { ...nodes[2], s: o.headScale };
  const chains = [HAIR.slice(), SKIRT.slice()];
  if (o.version === 1) {
    for (const chain of chains) {
      const last = chain[chain.length - 1];
      chain.push(nodes.push({ name: `${nodes[last].name}_end`, parent: last, t: vrm0Tail(nodes[last]) }) - 1);
    }
  }
  const b = new GltfBuilder();
  writeNodes(b, nodes);
  const settings = {
    hitRadius: o.hitRadius ?? 0.02, stiffness: o.stiffness ?? 0.8, gravityPower: o.gravityPower ?? 0.3,
    gravityDir: o.gravityDir ?? [0, -1, 0], dragForce: o.dragForce ?? 0.3,
  };
  const kinds = o.colliders ?? ['sphere', 'capsule', 'plane'];
  const colliders = kinds.map((kind) => {
    if (kind === 'sphere') return { node: 2, offset: [0, 0.05, 0.02] as Vec3, radius: 0.1 };
    if (kind === 'insideSphere') return { node: 2, offset: [0, 0.05, 0] as Vec3, radius: 0.3, inside: true };
    if (kind === 'capsule') return { node: 7, offset: [0, 0, 0] as Vec3, tail: [0, 0.5, 0.02] as Vec3, radius: 0.06 };
    return { node: 0, offset: [0, 0.55, 0] as Vec3, normal: [0.1, 1, 0.2] as Vec3 };
  });
  const json = b.json as unknown as Record<string, unknown> & { extensionsUsed: string[] };
  const center = o.center ? 1 : undefined;
  if (o.version === 1) {
    json.extensionsUsed.push('VRMC_springBone', 'VRMC_springBone_extended_collider');
    json.extensions = {
      VRMC_springBone: {
        specVersion: '1.0',
        colliders: colliders.map((c) => {
          if ('normal' in c) {
            return {
              node: c.node, shape: { sphere: { offset: c.offset, radius: 0 } },
              extensions: { VRMC_springBone_extended_collider: { specVersion: '1.0', shape: { plane: { offset: c.offset, normal: c.normal } } } },
            };
          }
          if ('inside' in c) {
            return {
              node: c.node, shape: { sphere: { offset: c.offset, radius: c.radius } },
              extensions: { VRMC_springBone_extended_collider: { specVersion: '1.0', shape: { sphere: { offset: c.offset, radius: c.radius, inside: true } } } },
            };
          }
          if ('tail' in c) return { node: c.node, shape: { capsule: { offset: c.offset, tail: c.tail, radius: c.radius } } };
          return { node: c.node, shape: { sphere: { offset: c.offset, radius: c.radius } } };
        }),
        colliderGroups: [{ name: 'all', colliders: colliders.map((_, i) => i) }],
        springs: chains.map((chain, i) => ({
          name: i === 0 ? 'hair' : 'skirt',
          joints: chain.map((node) => ({ node, ...settings })),
          colliderGroups: colliders.length > 0 ? [0] : [],
          ...(center !== undefined ? { center } : {}),
        })),
      },
    };
  } else {
    if (kinds.some((k) => k !== 'sphere')) throw new Error('VRM 0.x has sphere colliders only');
    json.extensionsUsed.push('VRM');
    json.extensions = {
      VRM: {
        specVersion: '0.0',
        // No humanoid bones (the springs need none), but the part a 0.x file always has.
        humanoid: { humanBones: [] },
        secondaryAnimation: {
          colliderGroups: colliders.map((c) => ({ node: c.node, colliders: [{ offset: { x: c.offset[0], y: c.offset[1], z: -c.offset[2] }, radius: c.radius }] })),
          boneGroups: chains.map((chain, i) => ({
            comment: i === 0 ? 'hair' : 'skirt',
            stiffiness: settings.stiffness, gravityPower: settings.gravityPower,
            gravityDir: { x: settings.gravityDir[0], y: settings.gravityDir[1], z: settings.gravityDir[2] },
            dragForce: settings.dragForce, hitRadius: settings.hitRadius,
            center: center ?? -1,
            bones: [chain[0]],
            colliderGroups: colliders.map((_, k) => k),
          })),
        },
      },
    };
  }
  return b.toGlb();
}

/** Adds `nodes` (parents before children) and a scene of the roots. */
export function writeNodes(b: GltfBuilder, nodes: readonly FixtureNode[]): void {
  nodes.forEach((n, i) => {
    const node: GltfNodeJson = { name: n.name, translation: n.t };
    if (n.r) node.rotation = n.r;
    if (n.s) node.scale = n.s;
    const children = nodes.flatMap((c, k) => (c.parent === i ? [k] : []));
    if (children.length > 0) node.children = children;
    b.addNode(node);
  });
  b.addScene({ nodes: nodes.flatMap((n, i) => (n.parent < 0 ? [i] : [])) });
}

export type ConstraintSpec =
  | { node: number; roll: { source: number; rollAxis: 'X' | 'Y' | 'Z'; weight?: number } }
  | { node: number; aim: { source: number; aimAxis: string; weight?: number } }
  | { node: number; rotation: { source: number; weight?: number } };

/**
 * A node tree with VRMC_node_constraint: `arm` and `hand` are the sources a test moves;
 * `twist` rolls with the hand, `follow` copies the arm's rotation, `pointer` aims at the hand,
 * `second` rolls with `twist` (a constraint whose source is constrained), all with rest
 * rotations so rest frames matter. `extra` adds or replaces constraints (a cycle, for one).
 */
export function constraintNodes(): FixtureNode[] {
  return [
    { name: 'root', parent: -1, t: [0, 0, 0] },
    { name: 'arm', parent: 0, t: [0.2, 1.4, 0], r: axisAngle([0, 0, 1], -40) },
    { name: 'hand', parent: 1, t: [0, 0.3, 0], r: axisAngle([0, 1, 0], 20) },
    { name: 'twist', parent: 1, t: [0, 0.15, 0], r: axisAngle([1, 0, 0], 30) },
    { name: 'follow', parent: 0, t: [-0.2, 1.4, 0], r: axisAngle([0, 0, 1], 35) },
    { name: 'pointer', parent: 0, t: [0, 1.0, 0.3], r: axisAngle([1, 1, 0], 25) },
    { name: 'second', parent: 4, t: [0, 0.2, 0], r: axisAngle([0, 1, 1], -15) },
  ];
}

export const DEFAULT_CONSTRAINTS: ConstraintSpec[] = [
  { node: 3, roll: { source: 2, rollAxis: 'Y', weight: 0.7 } },
  { node: 4, rotation: { source: 1, weight: 0.8 } },
  { node: 5, aim: { source: 2, aimAxis: 'NegativeZ' } },
  { node: 6, roll: { source: 3, rollAxis: 'X' } },
];

export function buildConstraintFixture(constraints: readonly ConstraintSpec[] = DEFAULT_CONSTRAINTS): Uint8Array {
  const b = new GltfBuilder();
  writeNodes(b, constraintNodes());
  const json = b.json as unknown as { extensionsUsed: string[]; nodes: Record<string, unknown>[] };
  json.extensionsUsed.push('VRMC_node_constraint');
  for (const c of constraints) {
    const { node, ...constraint } = c;
    json.nodes[node].extensions = { VRMC_node_constraint: { specVersion: '1.0', constraint } };
  }
  return b.toGlb();
}

/**
 * The built-in VRM avatar with its springs replaced by `chains` chains of `joints` joints each
 * (hanging from the head, the chest and the hips) and `colliders` colliders (spheres and
 * capsules on the body's joints): the spring-bone benchmark's avatar (~100 joints, ~20 colliders).
 */
export function buildSpringBenchAvatar(glb: Uint8Array, chains = 10, joints = 10, colliders = 20): Uint8Array {
  const { json, bin } = parseGlb(glb) as { json: Record<string, any>; bin: Uint8Array }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const nodes = json.nodes as { name?: string; children?: number[]; translation?: number[] }[];
  const byName = (n: string) => nodes.findIndex((x) => x.name === n);
  const anchors = ['Head', 'Chest', 'Hips'].map(byName);
  const springs = [];
  for (let c = 0; c < chains; c++) {
    const anchor = anchors[c % anchors.length];
    const angle = (c / chains) * 2 * Math.PI;
    let parent = anchor;
    const chain: number[] = [];
    for (let j = 0; j <= joints; j++) {
      const t = j === 0 ? [0.12 * Math.sin(angle), 0.05, 0.12 * Math.cos(angle)] : [0.01 * Math.sin(angle), -0.05, 0.01 * Math.cos(angle)];
      const node = nodes.push({ name: `bench${c}_${j}`, translation: t }) - 1;
      (nodes[parent].children ??= []).push(node);
      chain.push(node);
      parent = node;
    }
    springs.push({ name: `bench${c}`, joints: chain.map((node) => ({ node, hitRadius: 0.01, stiffness: 1, dragForce: 0.4, gravityPower: 0.5 })), colliderGroups: [0] });
  }
  const bodies = ['Head', 'Neck', 'Chest', 'Spine', 'Hips', 'UpperArm.L', 'UpperArm.R', 'LowerArm.L', 'LowerArm.R', 'UpperLeg.L', 'UpperLeg.R', 'LowerLeg.L', 'LowerLeg.R', 'Shoulder.L', 'Shoulder.R', 'Hand.L', 'Hand.R', 'Foot.L', 'Foot.R', 'Root'].map(byName);
  const list = Array.from({ length: colliders }, (_, i) => ({
    node: bodies[i % bodies.length],
    shape: i % 2 === 0 ? { sphere: { offset: [0, 0.05, 0], radius: 0.08 } } : { capsule: { offset: [0, 0, 0], tail: [0, 0.2, 0], radius: 0.06 } },
  }));
  json.extensions.VRMC_springBone = { specVersion: '1.0', colliders: list, colliderGroups: [{ name: 'body', colliders: list.map((_, i) => i) }], springs };
  return encodeGlb(json, bin);
}
