/**
 * Reads a file's VRM extensions into `Model.vrm` (vrm-model.ts): VRM 1.0 (VRMC_vrm,
 * VRMC_springBone with VRMC_springBone_extended_collider, VRMC_node_constraint) or VRM 0.x
 * (`extensions.VRM`), whichever the file has (1.0 wins when both are present, as in
 * three-vrm). Spring bones and node constraints are read in a plain glTF too. Nothing here
 * refuses a file: broken VRM parts are skipped with warnings (vrm-read.ts).
 */
import { isObject, type JsonObject } from '../json.ts';
import type { HumanoidMap } from '../humanoid.ts';
import type { Clip, Hierarchy } from '../model.ts';
import type { Vrm, VrmSpringBones } from '../vrm-model.ts';
import { readSecondaryAnimation } from './vrm0-secondary-animation.ts';
import { readVrm0Expressions, readVrm0LookAt, readVrm0MaterialProperties, readVrm0Meta } from './vrm0.ts';
import { readNodeConstraints } from './vrmc-node-constraint.ts';
import { readVrmAnimationTracks } from './vrmc-vrm-animation.ts';
import { readSpringBone } from './vrmc-spring-bone.ts';
import { readVrmcVrmExpressions, readVrmcVrmLookAt, readVrmcVrmMeta } from './vrmc-vrm.ts';
import { VRM0, VRMC_SPRING_BONE, VRMC_VRM } from './names.ts';
import { SpringBonesBuilder } from './vrm-spring-builder.ts';
import { rootExtension, VrmReader, type VrmReadInput } from './vrm-read.ts';

export interface VrmInput extends VrmReadInput {
  readonly hierarchy: Hierarchy;
  /** The humanoid map (vrm-humanoid.ts): the look-at turns its eyes. */
  readonly humanoid: HumanoidMap | undefined;
  readonly nodesJson: readonly unknown[];
  readonly materialNames: readonly (string | undefined)[];
}

/** `clips` with a .vrma file's expression and look-at tracks (vrmc-vrm-animation.ts). */
export function vrmAnimationClips(input: VrmReadInput, clips: readonly Clip[]): Clip[] {
  return readVrmAnimationTracks(new VrmReader(input), clips);
}

/** The model's VRM data, or undefined for a file with no VRM extension. */
export function readVrm(input: VrmInput): Vrm | undefined {
  const root = input.ctx.root;
  const reader = new VrmReader(input);
  const vrm1 = objectOrWarn(reader, rootExtension(root, VRMC_VRM), `extensions.${VRMC_VRM}`);
  const vrm0 = vrm1 ? undefined : objectOrWarn(reader, rootExtension(root, VRM0), `extensions.${VRM0}`);
  const springJson = objectOrWarn(reader, rootExtension(root, VRMC_SPRING_BONE), `extensions.${VRMC_SPRING_BONE}`);
  const constraints = readNodeConstraints(reader, input.nodesJson);
  if (!vrm1 && !vrm0 && !springJson && constraints.length === 0) return undefined;

  const builder = new SpringBonesBuilder(reader, input.hierarchy);
  if (springJson) readSpringBone(reader, springJson, builder);
  else if (vrm0 && isObject(vrm0.secondaryAnimation)) readSecondaryAnimation(reader, vrm0.secondaryAnimation, builder);
  const springBones = builder.build();
  const eyes = [input.humanoid?.leftEye, input.humanoid?.rightEye].filter((n): n is number => n !== undefined);
  markSimulatedNodes(input.hierarchy, springBones, [...constraints.map((c) => c.node), ...eyes]);

  if (vrm0) {
    return {
      specVersion: 0,
      meta: readVrm0Meta(reader, vrm0),
      expressions: readVrm0Expressions(reader, vrm0, input.materialNames),
      lookAt: readVrm0LookAt(reader, vrm0),
      springBones, constraints,
      materialProperties: readVrm0MaterialProperties(reader, vrm0),
    };
  }
  return {
    specVersion: 1,
    meta: vrm1 ? readVrmcVrmMeta(reader, vrm1) : { name: undefined, version: undefined, authors: [] , license: undefined },
    expressions: vrm1 ? readVrmcVrmExpressions(reader, vrm1) : [],
    lookAt: vrm1 ? readVrmcVrmLookAt(reader, vrm1) : undefined,
    springBones, constraints,
  };
}

function objectOrWarn(reader: VrmReader, v: unknown, path: string): JsonObject | undefined {
  if (v === undefined) return undefined;
  if (isObject(v)) return v;
  reader.warn(path, 'is not an object; ignored');
  return undefined;
}

/**
 * Nodes the VRM steps rotate are posed from T/R/S, not from a rest `matrix` (the loader does the
 * same for animated nodes): spring joints, constrained nodes and the eyes.
 */
function markSimulatedNodes(h: Hierarchy, springs: VrmSpringBones | undefined, rotated: readonly number[]): void {
  const useMatrix = h.useMatrix;
  if (springs) for (const node of springs.jointNode) useMatrix[h.slotOf[node]] = 0;
  for (const node of rotated) useMatrix[h.slotOf[node]] = 0;
}
