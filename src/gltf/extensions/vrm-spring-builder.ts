/**
 * Builds the runtime spring-bone model (`VrmSpringBones`, vrm-model.ts) that both VRM
 * versions read into: VRMC_springBone (vrmc-spring-bone.ts) and VRM 0.x's
 * `secondaryAnimation` (vrm0-secondary-animation.ts) add colliders and springs here, and
 * `build` lays them out in flat arrays with the joints' update order.
 */
import { multiplyMat4 } from '../../math/trs.ts';
import type { Hierarchy } from '../model.ts';
import { ColliderShape, type VrmSpring, type VrmSpringBones } from '../vrm-model.ts';
import type { VrmReader } from './vrm-read.ts';

export interface JointSettings {
  readonly hitRadius: number;
  readonly stiffness: number;
  readonly gravityPower: number;
  readonly gravityDir: readonly [number, number, number];
  readonly dragForce: number;
}

export interface JointInput {
  readonly node: number;
  /** Tail node, or -1 for a 0.x chain end (`tailOffset` then says where the tail is). */
  readonly tail: number;
  readonly settings: JointSettings;
}

interface SpringInput {
  readonly name: string | undefined;
  readonly path: string;
  readonly joints: readonly JointInput[];
  readonly colliders: readonly number[];
  readonly center: number;
}

/** three-vrm's length of a 0.x chain end's tail: 7 cm along the head's offset from its parent. */
export const VRM0_TAIL_LENGTH = 0.07;

export class SpringBonesBuilder {
  private readonly colliders: { node: number; shape: ColliderShape; inside: boolean; radius: number; offset: readonly number[]; tail: readonly number[] }[] = [];
  private readonly springs: SpringInput[] = [];

  constructor(private readonly reader: VrmReader, private readonly hierarchy: Hierarchy) {}

  get colliderCount(): number {
    return this.colliders.length;
  }

  /** Adds a collider; returns its index. `tail` is the capsule end or the plane normal. */
  addCollider(node: number, shape: ColliderShape, inside: boolean, radius: number, offset: readonly number[], tail: readonly number[] = [0, 0, 0]): number {
    this.colliders.push({ node, shape, inside, radius, offset, tail });
    return this.colliders.length - 1;
  }

  addSpring(name: string | undefined, path: string, joints: readonly JointInput[], colliders: readonly number[], center: number): void {
    if (joints.length > 0) this.springs.push({ name, path, joints, colliders, center });
  }

  build(): VrmSpringBones | undefined {
    const jointCount = this.springs.reduce((n, s) => n + s.joints.length, 0);
    if (jointCount === 0) return undefined;
    const colliderLinks = this.springs.reduce((n, s) => n + s.joints.length * s.colliders.length, 0);
    this.reader.input.ctx.budget.charge(jointCount * 160 + colliderLinks * 4 + this.colliders.length * 80, 'VRM spring bones');
    const out = {
      jointCount,
      jointNode: new Int32Array(jointCount),
      tailNode: new Int32Array(jointCount),
      tailOffset: new Float64Array(jointCount * 3),
      hitRadius: new Float64Array(jointCount),
      stiffness: new Float64Array(jointCount),
      gravityPower: new Float64Array(jointCount),
      gravityDir: new Float64Array(jointCount * 3),
      dragForce: new Float64Array(jointCount),
      center: new Int32Array(jointCount),
      spring: new Int32Array(jointCount),
      jointColliderStart: new Int32Array(jointCount + 1),
      jointColliders: new Int32Array(colliderLinks),
      order: new Int32Array(jointCount),
      colliderCount: this.colliders.length,
      colliderNode: Int32Array.from(this.colliders, (c) => c.node),
      colliderShape: Uint8Array.from(this.colliders, (c) => c.shape),
      colliderInside: Uint8Array.from(this.colliders, (c) => (c.inside ? 1 : 0)),
      colliderRadius: Float64Array.from(this.colliders, (c) => c.radius),
      colliderOffset: Float64Array.from(this.colliders.flatMap((c) => c.offset)),
      colliderTail: Float64Array.from(this.colliders.flatMap((c) => c.tail)),
      springs: [] as VrmSpring[],
    };
    let j = 0, link = 0;
    this.springs.forEach((s, si) => {
      out.springs.push({ name: s.name, firstJoint: j, jointCount: s.joints.length, path: s.path });
      for (const joint of s.joints) {
        out.jointNode[j] = joint.node;
        out.tailNode[j] = joint.tail;
        this.tailOffset(joint.node, joint.tail, out.tailOffset, j * 3);
        const st = joint.settings;
        out.hitRadius[j] = st.hitRadius;
        out.stiffness[j] = st.stiffness;
        out.gravityPower[j] = st.gravityPower;
        out.gravityDir.set(st.gravityDir, j * 3);
        out.dragForce[j] = st.dragForce;
        out.center[j] = s.center;
        out.spring[j] = si;
        out.jointColliderStart[j] = link;
        for (const c of s.colliders) out.jointColliders[link++] = c;
        j++;
      }
    });
    out.jointColliderStart[jointCount] = link;
    out.order.set(this.updateOrder(out));
    return out;
  }

  /**
   * The tail's rest position in the head's local space: the tail node's own translation when it
   * is the head's child (three-vrm's rule), the chain of rest transforms between them when it is
   * a deeper descendant (the nodes between are skipped, as VRMC_springBone says), and for a 0.x
   * chain end 7 cm along the head's own translation.
   */
  private tailOffset(head: number, tail: number, dst: Float64Array, o: number): void {
    const h = this.hierarchy;
    if (tail < 0) {
      const t = h.slotOf[head] * 3;
      const x = h.restTranslation[t], y = h.restTranslation[t + 1], z = h.restTranslation[t + 2];
      const len = Math.hypot(x, y, z);
      // three.js normalises a zero vector to zero: the tail then sits on the head.
      const k = len > 0 ? VRM0_TAIL_LENGTH / len : 0;
      dst[o] = x * k; dst[o + 1] = y * k; dst[o + 2] = z * k;
      return;
    }
    const tailSlot = h.slotOf[tail];
    if (this.reader.input.parent[tail] === head) {
      dst.set(h.restTranslation.subarray(tailSlot * 3, tailSlot * 3 + 3), o);
      return;
    }
    // local(head → tail) = L(n1) · … · L(tail), collected tail-first up to the head.
    const m = new Float64Array(16);
    m.set(h.restMatrix.subarray(tailSlot * 16, tailSlot * 16 + 16));
    for (let n = this.reader.input.parent[tail]; n >= 0 && n !== head; n = this.reader.input.parent[n]) {
      const s = h.slotOf[n];
      multiplyMat4(h.restMatrix, m, m, s * 16, 0, 0);
    }
    dst[o] = m[12]; dst[o + 1] = m[13]; dst[o + 2] = m[14];
  }

  /**
   * three-vrm's joint order: depth-first over the joints in file order, each placed after every
   * joint on its parent's ancestor path and on the ancestor paths of the colliders it tests, so
   * those have moved before it reads them. A cycle (two chains colliding with each other's
   * moving colliders) is reported once and broken where it is met.
   */
  private updateOrder(s: { jointCount: number; jointNode: Int32Array; jointColliderStart: Int32Array; jointColliders: Int32Array; colliderNode: Int32Array }): Int32Array {
    const parent = this.reader.input.parent;
    const jointsOnNode = new Map<number, number[]>();
    for (let j = 0; j < s.jointCount; j++) {
      const list = jointsOnNode.get(s.jointNode[j]);
      if (list) list.push(j);
      else jointsOnNode.set(s.jointNode[j], [j]);
    }
    const order: number[] = [];
    const state = new Uint8Array(s.jointCount); // 0 new, 1 on the stack, 2 placed
    let warnedCycle = false;
    const pathTo = (node: number): number[] => {
      const path: number[] = [];
      for (let n = node; n >= 0 && path.length <= parent.length; n = parent[n]) path.push(n);
      return path.reverse();
    };
    // Iterative DFS: a frame is (joint, its dependency nodes' joints still to visit).
    const visit = (root: number): void => {
      const stack: { joint: number; deps: number[]; next: number }[] = [];
      const push = (joint: number): void => {
        state[joint] = 1;
        const deps: number[] = [];
        const node = s.jointNode[joint];
        const depNodes = parent[node] >= 0 ? [parent[node]] : [];
        for (let k = s.jointColliderStart[joint]; k < s.jointColliderStart[joint + 1]; k++) depNodes.push(s.colliderNode[s.jointColliders[k]]);
        for (const dep of depNodes) {
          for (const n of pathTo(dep)) for (const other of jointsOnNode.get(n) ?? []) deps.push(other);
        }
        stack.push({ joint, deps, next: 0 });
      };
      push(root);
      while (stack.length > 0) {
        const top = stack[stack.length - 1];
        if (top.next < top.deps.length) {
          const dep = top.deps[top.next++];
          if (state[dep] === 0) push(dep);
          else if (state[dep] === 1 && dep !== top.joint && !warnedCycle) {
            warnedCycle = true;
            const spring = this.springs.find((sp) => sp.joints.some((jn) => jn.node === s.jointNode[dep]));
            this.reader.warn(spring?.path ?? 'VRM spring bones', 'spring joints depend on each other in a cycle (through their colliders); the cycle is broken in file order');
          }
          continue;
        }
        stack.pop();
        state[top.joint] = 2;
        order.push(top.joint);
      }
    };
    for (let j = 0; j < s.jointCount; j++) if (state[j] === 0) visit(j);
    return Int32Array.from(order);
  }
}
