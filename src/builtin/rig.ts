import { mat4d, quatd, vec3d, type Mat4d, type Quatd, type Vec3d } from 'wgpu-matrix';
import type { GltfBuilder } from '../gltf/builder.ts';
import type { Frame, Vec3Tuple } from './geometry.ts';

/**
 * Skeletons for the procedural models, authored the way an artist would place
 * bones: each joint has a model-space head position at rest and the
 * model-space direction of its local +Y axis (the bone direction, as in
 * Blender). Local TRS, globals and inverse bind matrices are derived, so the
 * rest pose has real rotations and the IBMs are not just translations.
 *
 * Offline code: it allocates freely and works in float64; values are rounded
 * to float32 only when written.
 */
export interface JointSpec {
  name: string;
  /** Index of the parent joint, or -1; must be lower than the joint's own index. */
  parent: number;
  head: readonly [number, number, number];
  /** Model-space direction of the joint's local +Y. */
  dir: readonly [number, number, number];
  /**
   * Where the joint's local +Z should point (roughly); local X = dir × forward.
   * Defaults to model +Z, the glTF "front".
   */
  forward?: readonly [number, number, number];
}

const DEFAULT_FORWARD = [0, 0, 1] as const;
const DEG = Math.PI / 180;

/** The sides of a symmetric rig, as joint names spell them (`Hand.L`): L is the model's left, +X. */
export type Side = 'L' | 'R';
export const SIDES: readonly Side[] = ['L', 'R'];
/** +1 on the left (+X), -1 on the right. */
export const sideSign = (s: Side): number => (s === 'L' ? 1 : -1);

export class Rig {
  readonly names: string[];
  readonly parents: Int16Array;
  /** Rest pose, local to the parent joint (float32-rounded, as stored in the file). */
  readonly localT: Float64Array;
  readonly localR: Float64Array;
  /** Rest pose in model space, recomposed from the rounded local TRS. */
  readonly globals: Mat4d[];
  /** Model-space rest rotation of each joint (unrounded; used for geometry frames). */
  readonly globalR: Quatd[];

  constructor(specs: readonly JointSpec[]) {
    const n = specs.length;
    this.names = specs.map((s) => s.name);
    this.parents = new Int16Array(n);
    this.localT = new Float64Array(3 * n);
    this.localR = new Float64Array(4 * n);
    this.globals = [];
    this.globalR = [];

    specs.forEach((s, j) => {
      if (s.parent >= j) throw new Error(`joint ${s.name}: parent must come first`);
      this.parents[j] = s.parent;
      const r = frameRotation(s.dir, s.forward ?? DEFAULT_FORWARD);
      this.globalR.push(r);

      let t: Vec3d = vec3d.fromValues(...s.head);
      let lr: Quatd = r;
      if (s.parent >= 0) {
        const inv = quatd.conjugate(this.globalR[s.parent]);
        t = vec3d.transformQuat(vec3d.subtract(t, vec3d.fromValues(...specs[s.parent].head)), inv);
        lr = quatd.multiply(inv, r);
      }
      lr = canonical(quatd.normalize(lr));
      for (let c = 0; c < 3; c++) this.localT[3 * j + c] = cleanF32(t[c]);
      for (let c = 0; c < 4; c++) this.localR[4 * j + c] = cleanF32(lr[c]);

      const local = this.localMatrix(j);
      this.globals.push(s.parent >= 0 ? mat4d.multiply(this.globals[s.parent], local) : local);
    });
  }

  get count(): number {
    return this.names.length;
  }

  index(name: string): number {
    const j = this.names.indexOf(name);
    if (j < 0) throw new Error(`no joint named ${name}`);
    return j;
  }

  restT(j: number): [number, number, number] {
    return [this.localT[3 * j], this.localT[3 * j + 1], this.localT[3 * j + 2]];
  }

  restR(j: number): Quatd {
    return quatd.fromValues(this.localR[4 * j], this.localR[4 * j + 1], this.localR[4 * j + 2], this.localR[4 * j + 3]);
  }

  /** Model-space rest position of joint `j`. */
  headOf(j: number): Vec3d {
    return mat4d.getTranslation(this.globals[j]);
  }

  /** Model-space direction of the joint's local axis 0 (X), 1 (Y) or 2 (Z) at rest. */
  axisOf(j: number, axis: 0 | 1 | 2): Vec3d {
    return vec3d.normalize(mat4d.getAxis(this.globals[j], axis));
  }

  /**
   * The joint's rest frame in model space (y along the bone), for building
   * geometry around it; `offset` moves the origin, in model space.
   */
  frame(j: number, offset: Vec3Tuple = [0, 0, 0]): Frame {
    const h = this.headOf(j);
    const t = (v: ArrayLike<number>): [number, number, number] => [v[0], v[1], v[2]];
    return {
      origin: [h[0] + offset[0], h[1] + offset[1], h[2] + offset[2]],
      x: t(this.axisOf(j, 0)),
      y: t(this.axisOf(j, 1)),
      z: t(this.axisOf(j, 2)),
    };
  }

  /**
   * A rotation of joint `j` about an axis given in *model space at rest*,
   * expressed in the joint's local frame. Animators think "swing the thigh
   * about the model X axis"; the stored channel needs the local form.
   */
  modelDelta(j: number, axis: readonly [number, number, number], degrees: number): Quatd {
    const local = vec3d.transformQuat(vec3d.normalize(vec3d.fromValues(...axis)), quatd.conjugate(this.globalR[j]));
    return quatd.fromAxisAngle(local, degrees * DEG);
  }

  /** A rotation about the joint's own local axis (the usual hinge for elbows and knees). */
  localDelta(axis: 0 | 1 | 2, degrees: number): Quatd {
    const a = vec3d.create();
    a[axis] = 1;
    return quatd.fromAxisAngle(a, degrees * DEG);
  }

  /** Local rotation of joint `j` for a pose: its rest rotation followed by `deltas` (applied first to last). */
  pose(j: number, ...deltas: Quatd[]): Quatd {
    let q = this.restR(j);
    for (const d of deltas) q = quatd.multiply(q, d);
    return quatd.normalize(q);
  }

  /** Inverse bind matrices (column-major float32), one per joint: inverse of the rest global. */
  inverseBindMatrices(): Float32Array {
    const out = new Float32Array(16 * this.count);
    this.globals.forEach((g, j) => out.set(mat4d.inverse(g).map(cleanF32), 16 * j));
    return out;
  }

  /**
   * Writes the joints as nodes (parent-first, in joint order) and returns the
   * node index of each joint. The caller parents the root joint node.
   */
  writeNodes(builder: GltfBuilder): number[] {
    const nodes: number[] = [];
    for (let j = 0; j < this.count; j++) {
      const t = this.restT(j);
      const r = Array.from(this.restR(j));
      const node = builder.addNode({ name: this.names[j] });
      const json = builder.json.nodes[node];
      // Identity parts are left out, as exporters do; loaders must default them.
      if (t.some((v) => v !== 0)) json.translation = t;
      if (!(r[0] === 0 && r[1] === 0 && r[2] === 0 && r[3] === 1)) json.rotation = r;
      nodes.push(node);
      const p = this.parents[j];
      if (p >= 0) (builder.json.nodes[nodes[p]].children ??= []).push(node);
    }
    return nodes;
  }

  private localMatrix(j: number): Mat4d {
    const m = mat4d.fromQuat(this.restR(j));
    return mat4d.setTranslation(m, this.restT(j), m);
  }
}

/**
 * The rotation whose local +Y is `dir` and whose local X is dir × forward, so
 * the frame is right-handed and the bone's roll is predictable.
 */
export function frameRotation(dir: readonly [number, number, number], forward: readonly [number, number, number]): Quatd {
  const y = vec3d.normalize(vec3d.fromValues(...dir));
  const x = vec3d.cross(y, vec3d.fromValues(...forward));
  if (vec3d.length(x) < 1e-9) throw new Error('bone direction is parallel to its forward hint');
  vec3d.normalize(x, x);
  const z = vec3d.cross(x, y);
  const m = mat4d.identity();
  mat4d.setAxis(m, x, 0, m);
  mat4d.setAxis(m, y, 1, m);
  mat4d.setAxis(m, z, 2, m);
  return canonical(quatd.normalize(quatd.fromMat(m)));
}

/** q and -q are the same rotation; pick w ≥ 0 so output does not depend on the conversion path. */
export function canonical(q: Quatd): Quatd {
  if (q[3] < 0) quatd.scale(q, -1, q);
  return q;
}

/**
 * Rounds to float32 and flushes values within float noise of 0 to exactly 0
 * (and -0 to 0), so identity parts compare equal and JSON stays tidy.
 */
export function cleanF32(v: number): number {
  return Math.abs(v) < 1e-12 ? 0 : Math.fround(v);
}
