/**
 * Test page for the MToon browser tests (test/browser/mtoon-*.test.ts): draws a glTF/VRM file
 * with our Renderer (WebGPU, offscreen, read back) and, for the side-by-side comparison, with
 * three.js's WebGLRenderer and three-vrm 3.5's MToonMaterial, from the same camera under the
 * same lights: a directional key light and a hemisphere (three.js's HemisphereLight of
 * intensity π reflects what our hemisphere does). Both images come back as RGBA8, straight
 * alpha, top row first, base64 (ours: side-by-side-scene.ts).
 */
import { VRMLoaderPlugin } from '@pixiv/three-vrm';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { toBase64 } from '../../../src/gltf/builder.ts';
import { fromBase64 } from '../../gpu/browser/base64.ts';
import { canvasRgba, drawOurs, type SideBySideImage, type SideBySideScene } from './side-by-side-scene.ts';

/** The MToon pages' scene: the side-by-side scene (our half draws it with side-by-side-scene.ts). */
export type MToonScene = SideBySideScene;

declare global {
  interface Window {
    mtoonOurs(scene: MToonScene): Promise<SideBySideImage>;
    mtoonThreeVrm(scene: MToonScene): Promise<SideBySideImage>;
  }
}

window.mtoonOurs = drawOurs;

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
  const rgba = canvasRgba(canvas);
  renderer.dispose();
  return { rgba: toBase64(rgba), errors: [], warnings: [] };
};
