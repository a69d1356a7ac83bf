/**
 * VRMC_node_constraint: a node's rotation driven by another node's — `roll` (the source's
 * rotation about one axis), `aim` (one axis pointed at the source) or `rotation` (the source's
 * whole rotation), each blended by `weight`. Read from `nodes[i].extensions` into a list in
 * evaluation order: a constraint comes after those that move its source (or the source's
 * ancestors, and for aim its own parent's), as three-vrm orders them. Constraints that
 * depend on each other in a cycle cannot be ordered: they are dropped with a warning naming
 * each one's path (three-vrm throws instead).
 */
import { isObject } from '../json.ts';
import type { VrmConstraintType, VrmNodeConstraint } from '../vrm-model.ts';
import type { VrmReader } from './vrm-read.ts';
import { VRMC_NODE_CONSTRAINT } from './names.ts';

const SPEC_VERSIONS = ['1.0', '1.0-beta'];

const ROLL_AXES = { X: [1, 0, 0], Y: [0, 1, 0], Z: [0, 0, 1] } as const;
const AIM_AXES = {
  PositiveX: [1, 0, 0], NegativeX: [-1, 0, 0], PositiveY: [0, 1, 0], NegativeY: [0, -1, 0], PositiveZ: [0, 0, 1], NegativeZ: [0, 0, -1],
} as const;

/** Every node's constraint, in evaluation order. */
export function readNodeConstraints(reader: VrmReader, nodesJson: readonly unknown[]): VrmNodeConstraint[] {
  const found: VrmNodeConstraint[] = [];
  nodesJson.forEach((n, i) => {
    if (!isObject(n) || !isObject(n.extensions)) return;
    const ext = n.extensions[VRMC_NODE_CONSTRAINT];
    if (ext === undefined) return;
    const c = reader.part(() => readConstraint(reader, ext, i));
    if (c) found.push(c);
  });
  return evaluationOrder(reader, found);
}

function readConstraint(reader: VrmReader, ext: unknown, node: number): VrmNodeConstraint | undefined {
  const path = `nodes[${node}].extensions.${VRMC_NODE_CONSTRAINT}`;
  if (!isObject(ext)) {
    reader.warn(path, 'is not an object; skipped');
    return undefined;
  }
  const version = reader.string(ext, 'specVersion', path);
  if (version === undefined || !SPEC_VERSIONS.includes(version)) {
    reader.warn(`${path}.specVersion`, `spec version ${JSON.stringify(version)} is not 1.0; read as 1.0`);
  }
  const constraint = reader.object(ext, 'constraint', path);
  const cpath = `${path}.constraint`;
  const kinds = constraint ? (['roll', 'aim', 'rotation'] as const).filter((k) => constraint[k] !== undefined) : [];
  if (!constraint || kinds.length === 0) {
    reader.warn(cpath, 'has no roll, aim or rotation constraint; skipped');
    return undefined;
  }
  // The schema allows exactly one; three-vrm takes the first of roll, aim, rotation.
  if (kinds.length > 1) reader.warn(cpath, `has ${kinds.join(' and ')}; only ${kinds[0]} is used`);
  const type: VrmConstraintType = kinds[0];
  const body = reader.object(constraint, type, cpath);
  if (!body) return undefined;
  const bpath = `${cpath}.${type}`;
  const source = reader.node(body.source, `${bpath}.source`);
  if (source === node) {
    reader.warn(`${bpath}.source`, 'is the constrained node itself; skipped');
    return undefined;
  }
  let axis: readonly [number, number, number] = [0, 0, 0];
  if (type === 'roll') axis = ROLL_AXES[reader.choice(body, 'rollAxis', bpath, ['X', 'Y', 'Z'] as const, 'X')];
  if (type === 'aim') {
    const names = Object.keys(AIM_AXES) as (keyof typeof AIM_AXES)[];
    axis = AIM_AXES[reader.choice(body, 'aimAxis', bpath, names, 'PositiveX')];
  }
  return { type, node, source, axis, weight: reader.number(body, 'weight', bpath, 1, 0, 1), path };
}

/**
 * Depth-first over the constraints in node order, each after the constraints on its
 * dependencies' ancestor paths (its source; for aim also its own parent). A constraint met
 * again while its own dependencies are being visited closes a cycle: every constraint on that
 * cycle is dropped.
 */
function evaluationOrder(reader: VrmReader, constraints: readonly VrmNodeConstraint[]): VrmNodeConstraint[] {
  const parent = reader.input.parent;
  const onNode = new Map<number, number[]>();
  constraints.forEach((c, i) => {
    const list = onNode.get(c.node);
    if (list) list.push(i);
    else onNode.set(c.node, [i]);
  });
  const depsOf = (c: VrmNodeConstraint): number[] => {
    const nodes = [c.source];
    if (c.type === 'aim' && parent[c.node] >= 0) nodes.push(parent[c.node]);
    const out: number[] = [];
    for (const dep of nodes) {
      // The dependency itself and its ancestors (bounded: the hierarchy is acyclic).
      for (let n = dep, steps = 0; n >= 0 && steps <= parent.length; n = parent[n], steps++) out.push(...(onNode.get(n) ?? []));
    }
    return out;
  };
  const state = new Uint8Array(constraints.length); // 0 new, 1 on the stack, 2 done
  const cyclic = new Uint8Array(constraints.length);
  const order: number[] = [];
  for (let root = 0; root < constraints.length; root++) {
    if (state[root] !== 0) continue;
    const stack: { c: number; deps: number[]; next: number }[] = [{ c: root, deps: depsOf(constraints[root]), next: 0 }];
    state[root] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.next < top.deps.length) {
        const d = top.deps[top.next++];
        if (state[d] === 0) {
          state[d] = 1;
          stack.push({ c: d, deps: depsOf(constraints[d]), next: 0 });
        } else if (state[d] === 1) {
          // Every constraint on the stack from d up is on the cycle.
          for (let k = stack.length - 1; k >= 0; k--) {
            cyclic[stack[k].c] = 1;
            if (stack[k].c === d) break;
          }
        }
        continue;
      }
      stack.pop();
      state[top.c] = 2;
      order.push(top.c);
    }
  }
  for (let i = 0; i < constraints.length; i++) {
    if (cyclic[i]) reader.warn(constraints[i].path, 'depends on itself through a cycle of constraints; skipped');
  }
  return order.filter((i) => !cyclic[i]).map((i) => constraints[i]);
}
