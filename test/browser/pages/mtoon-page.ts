/**
 * Test page for the MToon browser tests (test/browser/mtoon-*.test.ts): draws a glTF/VRM file
 * with our Renderer (WebGPU, offscreen, read back) and, for the side-by-side comparison, with
 * three.js's WebGLRenderer and three-vrm 3.5's MToonMaterial, from the same camera under the
 * same lights: a directional key light and a hemisphere (three.js's HemisphereLight of
 * intensity π reflects what our hemisphere does). Both images come back as RGBA8, straight
 * alpha, top row first, base64.
 */
import { VRMLoaderPlugin } from '@pixiv/three-vrm';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { toBase64 } from '../../../src/gltf/builder.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { OrbitCamera } from '../../../src/gpu/frame/camera.ts';
import { requestWebGpuDevice } from '../../../src/gpu/device/device.ts';
import { ToneMapping } from '../../../src/gpu/layouts/bindings.ts';
import { createOffscreenTarget, readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { Renderer } from '../../../src/gpu/renderer.ts';
import { fromBase64 } from '../../gpu/browser/base64.ts';

export interface MToonScene {
  /** The file, base64. */
  readonly glb: string;
  readonly width: number;
  readonly height: number;
  readonly eye: readonly [number, number, number];
  readonly target: readonly [number, number, number];
  /** Vertical field of view, radians. */
  readonly fovY: number;
  readonly near: number;
  readonly far: number;
  /** Towards the key light, world space. */
  readonly lightDirection: readonly [number, number, number];
  /** Linear RGB × intensity. */
  readonly lightColor: readonly [number, number, number];
  readonly skyColor: readonly [number, number, number];
  readonly groundColor: readonly [number, number, number];
  readonly outlineWidth?: number;
  /** Seconds of wall time the player runs before the frame (UV animation). */
  readonly time?: number;
}

export interface MToonImage {
  readonly rgba: string;
  readonly errors: string[];
}

declare global {
  interface Window {
    mtoonOurs(scene: MToonScene): Promise<MToonImage>;
    mtoonThreeVrm(scene: MToonScene): Promise<MToonImage>;
  }
}

let device: GPUDevice | undefined;
const errors: string[] = [];

window.mtoonOurs = async (s) => {
  if (!device) {
    device = await requestWebGpuDevice({ label: 'MToon test device' });
    device.addEventListener('uncapturederror', (e) => errors.push((e as GPUUncapturedErrorEvent).error.message));
  }
  const model = await loadGltf(fromBase64(s.glb), { name: 'MToon test model' });
  const renderer = new Renderer(device, { format: 'rgba8unorm-srgb', label: 'MToon test renderer', onWarning: (w) => errors.push(`warning ${w.path}: ${w.message}`) });
  const settings = renderer.settings;
  settings.clearColor.set([0, 0, 0, 0]);
  settings.toneMapping = ToneMapping.NONE;
  settings.exposure = 1;
  settings.lightSpace = 'world';
  settings.lightDirection.set(s.lightDirection);
  settings.lightColor.set(s.lightColor);
  settings.lightIntensity = 1;
  settings.skyColor.set(s.skyColor);
  settings.groundColor.set(s.groundColor);
  settings.outlineWidth = s.outlineWidth ?? 1;
  await renderer.setModel(model);
  const player = new AnimationPlayer(model);
  if (s.time) player.update(s.time);
  const camera = new OrbitCamera();
  const rel = [0, 1, 2].map((c) => s.eye[c] - s.target[c]);
  camera.distance = Math.hypot(rel[0], rel[1], rel[2]);
  camera.pitch = Math.asin(rel[1] / camera.distance);
  camera.yaw = Math.atan2(rel[0], rel[2]);
  camera.target.set(s.target);
  camera.fovY = s.fovY;
  camera.near = s.near;
  camera.far = s.far;
  const target = createOffscreenTarget(device, s.width, s.height, 'rgba8unorm-srgb', 'MToon test target');
  renderer.render(target, camera, player.instance);
  const rgba = await readTexturePixels(device, target);
  target.destroy();
  renderer.destroy();
  // Premultiplied → straight alpha, as three.js's readback gives.
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3];
    if (a > 0 && a < 255) for (let c = 0; c < 3; c++) rgba[i + c] = Math.min(255, Math.round((rgba[i + c] * 255) / a));
  }
  return { rgba: toBase64(rgba), errors: errors.splice(0) };
};

window.mtoonThreeVrm = async (s) => {
  const canvas = document.createElement('canvas');
  canvas.width = s.width;
  canvas.height = s.height;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, alpha: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(s.width, s.height, false);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  renderer.toneMapping = THREE.NoToneMapping;
  renderer.setClearColor(0x000000, 0);
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  const bytes = fromBase64(s.glb);
  const gltf = await loader.parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, '');
  const scene = new THREE.Scene();
  scene.add(gltf.scene);
  const linear = (c: readonly number[]) => new THREE.Color().setRGB(c[0], c[1], c[2], THREE.LinearSRGBColorSpace);
  const key = new THREE.DirectionalLight(linear(s.lightColor), 1);
  key.position.set(s.lightDirection[0], s.lightDirection[1], s.lightDirection[2]);
  scene.add(key, key.target);
  scene.add(new THREE.HemisphereLight(linear(s.skyColor), linear(s.groundColor), Math.PI));
  // Our AnimationPlayer poses a model by its first clip at time 0 (paused): so does the mixer.
  if (gltf.animations.length > 0) {
    const mixer = new THREE.AnimationMixer(gltf.scene);
    mixer.clipAction(gltf.animations[0]).play();
    mixer.update(0);
  }
  const vrm = gltf.userData.vrm as { update(dt: number): void; humanoid?: { autoUpdateHumanBones: boolean } } | undefined;
  // The clip moves the file's own bones: the normalised rig (at rest) must not overwrite them in update().
  if (vrm?.humanoid) vrm.humanoid.autoUpdateHumanBones = false;
  // three-vrm advances MToon's UV animation in update(delta); without a VRM, each material does.
  const materials = new Set<{ update?: (dt: number) => void }>();
  gltf.scene.traverse((o) => {
    const m = (o as THREE.Mesh).material;
    for (const mat of Array.isArray(m) ? m : m ? [m] : []) materials.add(mat as never);
    // The outline on a paused model settles where three-vrm puts it.
    (o as THREE.Object3D).frustumCulled = false;
  });
  if (s.time) {
    if (vrm) vrm.update(s.time);
    else for (const mat of materials) mat.update?.(s.time);
  } else {
    if (vrm) vrm.update(0);
    else for (const mat of materials) mat.update?.(0);
  }
  const camera = new THREE.PerspectiveCamera((s.fovY * 180) / Math.PI, s.width / s.height, s.near, s.far);
  camera.position.set(s.eye[0], s.eye[1], s.eye[2]);
  camera.lookAt(s.target[0], s.target[1], s.target[2]);
  renderer.render(scene, camera);
  const copy = document.createElement('canvas');
  copy.width = s.width;
  copy.height = s.height;
  const context = copy.getContext('2d')!;
  context.drawImage(canvas, 0, 0);
  const rgba = new Uint8Array(context.getImageData(0, 0, s.width, s.height).data.buffer);
  renderer.dispose();
  return { rgba: toBase64(rgba), errors: [] };
};
