/**
 * VRMC_vrm_animation (`.vrma`): a clip for VRM avatars. Its humanoid bones' rotation (and the
 * hips' translation) channels are ordinary node channels, read as any clip and retargeted
 * through the humanoid map (`Model.humanoid`, read by vrm-humanoid.ts from this extension's
 * `humanoid`). What this module adds: each `expressions.preset|custom[name].node` whose
 * translation channel carries the expression's weight in x becomes `Clip.expressionTracks`,
 * and `lookAt.node`'s rotation channel (the gaze, turned from the model's front) becomes
 * `Clip.lookAtTrack`; both are played by the VRM runtime (src/anim/vrm). Broken entries are
 * skipped with a warning naming their path.
 */
import { TargetPath } from '../constants.ts';
import { isObject } from '../json.ts';
import type { Clip, ExpressionTrack } from '../model.ts';
import { rootExtension, type VrmReader } from './vrm-read.ts';
import { VRMC_VRM_ANIMATION } from './names.ts';

/** The clips with the file's expression and look-at tracks attached (the clips unchanged when the file has none). */
export function readVrmAnimationTracks(reader: VrmReader, clips: readonly Clip[]): Clip[] {
  const ext = rootExtension(reader.input.ctx.root, VRMC_VRM_ANIMATION);
  if (ext === undefined) return clips.slice();
  const path = `extensions.${VRMC_VRM_ANIMATION}`;
  if (!isObject(ext)) {
    reader.warn(path, 'is not an object; ignored');
    return clips.slice();
  }
  const version = reader.string(ext, 'specVersion', path);
  if (version !== '1.0' && version !== '1.0-draft') reader.warn(`${path}.specVersion`, `spec version ${JSON.stringify(version)} is not 1.0; read as 1.0`);
  const expressionNodes = new Map<number, string>();
  const expressions = reader.object(ext, 'expressions', path);
  for (const group of ['preset', 'custom'] as const) {
    const entries = expressions && reader.object(expressions, group, `${path}.expressions`);
    for (const [name, e] of Object.entries(entries ?? {})) {
      const epath = `${path}.expressions.${group}.${name}`;
      const node = reader.part(() => {
        if (!isObject(e)) return void reader.warn(epath, 'is not an object; skipped');
        return reader.node(e.node, `${epath}.node`);
      });
      if (node !== undefined) expressionNodes.set(node, name);
    }
  }
  const lookAt = reader.object(ext, 'lookAt', path);
  const lookAtNode = lookAt && lookAt.node !== undefined ? reader.part(() => reader.node(lookAt.node, `${path}.lookAt.node`)) ?? -1 : -1;
  return clips.map((clip) => {
    const expressionTracks: ExpressionTrack[] = [];
    let lookAtTrack;
    for (const ch of clip.channels) {
      const name = expressionNodes.get(ch.node);
      if (name !== undefined && ch.path === TargetPath.TRANSLATION) expressionTracks.push({ name, sampler: ch.sampler });
      if (ch.node === lookAtNode && ch.path === TargetPath.ROTATION) lookAtTrack = ch.sampler;
    }
    return {
      ...clip,
      ...(expressionTracks.length > 0 ? { expressionTracks } : {}),
      ...(lookAtTrack ? { lookAtTrack } : {}),
    };
  });
}
