/**
 * A frame's uniforms (frame-uniforms.ts) from the camera, the target, the settings and what
 * lights the scene: the renderer writes them once per frame, then uploads the block in one
 * writeBuffer. Allocates nothing.
 */
import { length3, multiplyMat4 } from '../../math/trs.ts';
import { viewRotation } from './camera-relative.ts';
import type { Camera } from './camera.ts';
import { DEBUG_LINE_WIDTH_FRACTION, DEBUG_LINE_WIDTH_MIN } from '../layouts/debug.ts';
import type { Environment } from '../environment/environment.ts';
import type { FrameUniformsData } from '../layouts/frame-uniforms.ts';
import type { RenderSettings } from './render-settings.ts';

/** The shadow lookup's tap spacing in texels for `softness` 0…1 (clamped): 1 (today's edge) to 8. */
function shadowSpread(softness: number): number {
  return 1 + 7 * Math.min(1, Math.max(0, softness || 0));
}

/** The key light's world direction before normalising (scratch, so a frame allocates nothing). */
const worldLight = new Float32Array(3);

/**
 * Fills `f` for a frame seen by `camera` into `target`: camera-relative matrices (the eye is
 * the origin of what the shaders see), exposure and tone mapping, the environment's levels,
 * irradiance and dominant direction when one lights the scene (else the key light, turned
 * from view space when `settings.lightSpace` says so) and the hemisphere, the viewport and
 * the debug line sizes (`autoLineLength`: the model's, when the setting is 0). The shadow
 * fields are the shadow map's (shadow-map.ts).
 */
export function writeFrameUniforms(
  f: FrameUniformsData, camera: Camera, target: GPUTexture, s: RenderSettings, environment: Environment | undefined, autoLineLength: number,
): void {
  viewRotation(camera.view, f.view);
  f.projection.set(camera.projection);
  multiplyMat4(camera.projection, f.view, f.viewProjection);
  f.cameraPosition.fill(0);
  f.exposure[0] = s.exposure;
  f.toneMapping[0] = s.toneMapping;
  f.environmentLevels[0] = environment ? environment.specularLevels : 0;
  if (environment) f.environmentIrradiance.set(environment.irradianceCoefficients);
  f.shadowSpread[0] = shadowSpread(s.shadowSoftness);
  // Not finite or below 0: as authored (settings are read per frame, never thrown on).
  f.outlineWidthScale[0] = s.outlineWidth >= 0 && Number.isFinite(s.outlineWidth) ? s.outlineWidth : 1;
  const l = environment ? environment.dominantDirection : s.lightDirection;
  const w = worldLight;
  if (s.lightSpace === 'view' && !environment) {
    // View → world for a direction: the transpose of the view matrix's rotation.
    const v = camera.view;
    w[0] = v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
    w[1] = v[4] * l[0] + v[5] * l[1] + v[6] * l[2];
    w[2] = v[8] * l[0] + v[9] * l[1] + v[10] * l[2];
  } else {
    w[0] = l[0]; w[1] = l[1]; w[2] = l[2];
  }
  const len = length3(w[0], w[1], w[2]) || 1;
  f.lightDirection[0] = w[0] / len;
  f.lightDirection[1] = w[1] / len;
  f.lightDirection[2] = w[2] / len;
  for (let c = 0; c < 3; c++) f.lightColor[c] = s.lightColor[c] * s.lightIntensity;
  f.skyColor.set(s.skyColor);
  f.groundColor.set(s.groundColor);
  f.viewportSize[0] = target.width;
  f.viewportSize[1] = target.height;
  f.debugLineLength[0] = s.debugLineLength > 0 ? s.debugLineLength : autoLineLength;
  f.debugLineWidth[0] = Math.max(DEBUG_LINE_WIDTH_MIN, Math.min(target.width, target.height) * DEBUG_LINE_WIDTH_FRACTION);
}
