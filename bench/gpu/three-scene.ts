/**
 * What both GPU bench pages (page.ts, crowd-page.ts) set up the same way for three.js and
 * for ours: the background, the field of view, three's output settings matching ours, our
 * default lights in three.js terms, three's camera of our OrbitCamera, the characters'
 * phases and how an error is reported.
 */
import * as THREE from 'three/webgpu';
import type { OrbitCamera } from '../../src/gpu/frame/camera.ts';

/** Background of every canvas (display-referred sRGB), also the page's. */
export const CLEAR = [0x29 / 255, 0x2b / 255, 0x30 / 255] as const;
export const FOV_Y = (40 * Math.PI) / 180;

/** Output settings matching ours: PBR Neutral tone mapping, the clear colour. */
export function configureThree(r: THREE.WebGPURenderer): void {
  r.toneMapping = THREE.NeutralToneMapping;
  // A clear colour, not scene.background (which three draws as an extra full-screen pass).
  r.setClearColor(new THREE.Color().setRGB(CLEAR[0], CLEAR[1], CLEAR[2], THREE.SRGBColorSpace), 1);
}

/** Our default lights: key light 3 from the upper front, hemispherical sky/ground ambient. */
export function threeLitScene(): THREE.Scene {
  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(new THREE.Color(0.42, 0.45, 0.5), new THREE.Color(0.16, 0.14, 0.12), Math.PI));
  const key = new THREE.DirectionalLight(new THREE.Color(1, 0.98, 0.95), 3);
  key.position.set(0.45, 0.75, 0.5);
  scene.add(key);
  return scene;
}

/** The three.js camera of our OrbitCamera `c` (after `c.update`), for a canvas of `aspect`. */
export function threeCameraOf(c: OrbitCamera, aspect: number): THREE.PerspectiveCamera {
  const t = new THREE.PerspectiveCamera((c.fovY * 180) / Math.PI, aspect, c.near, c.far);
  t.position.set(c.position[0], c.position[1], c.position[2]);
  t.lookAt(c.target[0], c.target[1], c.target[2]);
  t.updateMatrixWorld();
  return t;
}

/** An error as one line for the page's result. */
export function message(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** Golden-ratio phases, so no two characters move in step. */
export function phase(k: number, duration: number): number {
  return ((k * 0.6180339887498949) % 1) * duration;
}
