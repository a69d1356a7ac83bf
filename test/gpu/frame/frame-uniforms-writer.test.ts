import { describe, expect, it } from 'vitest';
import { OrbitCamera } from '../../../src/gpu/frame/camera.ts';
import type { Environment } from '../../../src/gpu/environment/environment.ts';
import { FrameUniformsData } from '../../../src/gpu/layouts/frame-uniforms.ts';
import { writeFrameUniforms } from '../../../src/gpu/frame/frame-uniforms-writer.ts';
import { defaultRenderSettings } from '../../../src/gpu/frame/render-settings.ts';

const target = { width: 300, height: 200 } as GPUTexture;

function camera(yaw: number): OrbitCamera {
  const c = new OrbitCamera();
  c.yaw = yaw;
  c.update(1.5);
  return c;
}

describe('writeFrameUniforms', () => {
  it('a world-space key light is normalised and kept; a view-space one turns with the camera', () => {
    const f = new FrameUniformsData();
    const s = defaultRenderSettings();
    s.lightDirection.set([0, 0, 2]);
    s.lightSpace = 'world';
    writeFrameUniforms(f, camera(Math.PI / 2), target, s, undefined, 0);
    expect(Array.from(f.lightDirection)).toEqual([0, 0, 1]);
    s.lightSpace = 'view';
    writeFrameUniforms(f, camera(0), target, s, undefined, 0);
    const front = Array.from(f.lightDirection);
    writeFrameUniforms(f, camera(Math.PI / 2), target, s, undefined, 0);
    const side = Array.from(f.lightDirection);
    // Towards the viewer in view space: along the camera's own axis, which a quarter turn moves.
    expect(Math.hypot(...front)).toBeCloseTo(1, 6);
    expect(Math.abs(front[0] * side[0] + front[1] * side[1] + front[2] * side[2])).toBeLessThan(1e-6);
    expect(Array.from(f.viewportSize)).toEqual([300, 200]);
    expect(f.environmentLevels[0]).toBe(0);
  });

  it('an environment replaces the key light by its dominant direction and gives its levels and irradiance', () => {
    const f = new FrameUniformsData();
    const s = defaultRenderSettings();
    s.lightSpace = 'view';
    const irradiance = new Float32Array(36).map((_, i) => i / 36);
    const environment = { dominantDirection: Float32Array.of(0, 3, 4), irradianceCoefficients: irradiance, specularLevels: 6 } as unknown as Environment;
    writeFrameUniforms(f, camera(1), target, s, environment, 0.25);
    expect(Array.from(f.lightDirection).map((v) => Math.round(v * 1e6) / 1e6)).toEqual([0, 0.6, 0.8]);
    expect(f.environmentLevels[0]).toBe(6);
    expect(Array.from(f.environmentIrradiance)).toEqual(Array.from(irradiance));
    expect(f.debugLineLength[0]).toBe(0.25);
    s.debugLineLength = 0.5;
    writeFrameUniforms(f, camera(1), target, s, environment, 0.25);
    expect(f.debugLineLength[0]).toBe(0.5);
  });
});
