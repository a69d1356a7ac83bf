/**
 * Test page for the PBR material extensions' side by side (test/browser/pbr-three.test.ts): a
 * glTF file drawn by our Renderer (side-by-side-scene.ts) and by three.js r187's WebGPURenderer
 * (its GLTFLoader's MeshPhysicalMaterial, drawn as node materials) in the same Chromium, from the
 * same camera under the same light: a directional key light and a uniform ambient. Ours draws
 * the ambient as a hemisphere with sky = ground (it lights diffuse and, through the split-sum
 * fit, specular); three.js's HemisphereLight lights diffuse only, so on its side the ambient is
 * a uniform environment map of that radiance (prefiltered, it stays uniform), which lights both.
 * No tone mapping, sRGB output, 4× MSAA on both.
 */
import * as THREE from 'three/webgpu';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { toBase64 } from '../../../src/gltf/builder.ts';
import { fromBase64 } from '../../gpu/browser/base64.ts';
import { canvasRgba, drawOurs, type SideBySideImage, type SideBySideScene } from './side-by-side-scene.ts';

declare global {
  interface Window {
    pbrOurs(scene: SideBySideScene): Promise<SideBySideImage>;
    pbrThree(scene: SideBySideScene): Promise<SideBySideImage>;
  }
}

window.pbrOurs = drawOurs;

/** Texels of the uniform environment (any size: every texel is the same radiance). */
const ENVIRONMENT_WIDTH = 16, ENVIRONMENT_HEIGHT = 8;

const errors: string[] = [];
const warn = console.warn;
console.warn = (...args: unknown[]) => {
  errors.push(`console.warn: ${args.map(String).join(' ')}`);
  warn(...args);
};

window.pbrThree = async (s) => {
  const canvas = document.createElement('canvas');
  canvas.width = s.width;
  canvas.height = s.height;
  const renderer = new THREE.WebGPURenderer({ canvas, antialias: true, alpha: true });
  renderer.setPixelRatio(1);
  renderer.setSize(s.width, s.height, false);
  await renderer.init();
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  renderer.toneMapping = THREE.NoToneMapping;
  renderer.setClearColor(0x000000, 0);
  const bytes = fromBase64(s.glb);
  const gltf = await new GLTFLoader().parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, '');
  const scene = new THREE.Scene();
  scene.add(gltf.scene);
  const key = new THREE.DirectionalLight(new THREE.Color().setRGB(s.lightColor[0], s.lightColor[1], s.lightColor[2], THREE.LinearSRGBColorSpace), 1);
  key.position.set(s.lightDirection[0], s.lightDirection[1], s.lightDirection[2]);
  scene.add(key, key.target);
  if (s.skyColor.some((c, i) => c !== s.groundColor[i])) throw new Error('the three.js side lights a uniform ambient only (sky = ground)');
  const texels = new Float32Array(ENVIRONMENT_WIDTH * ENVIRONMENT_HEIGHT * 4);
  for (let i = 0; i < texels.length; i += 4) texels.set([s.skyColor[0], s.skyColor[1], s.skyColor[2], 1], i);
  const environment = new THREE.DataTexture(texels, ENVIRONMENT_WIDTH, ENVIRONMENT_HEIGHT, THREE.RGBAFormat, THREE.FloatType);
  environment.mapping = THREE.EquirectangularReflectionMapping;
  environment.colorSpace = THREE.LinearSRGBColorSpace;
  environment.needsUpdate = true;
  scene.environment = environment;
  const camera = new THREE.PerspectiveCamera((s.fovY * 180) / Math.PI, s.width / s.height, s.near, s.far);
  camera.position.set(s.eye[0], s.eye[1], s.eye[2]);
  camera.lookAt(s.target[0], s.target[1], s.target[2]);
  await renderer.compileAsync(scene, camera);
  for (let k = 0; k < (s.warmFrames ?? 0); k++) {
    renderer.render(scene, camera);
    await (renderer.backend as unknown as { device: GPUDevice }).device.queue.onSubmittedWorkDone();
  }
  renderer.render(scene, camera);
  const rgba = canvasRgba(canvas);
  environment.dispose();
  renderer.dispose();
  return { rgba: toBase64(rgba), errors: errors.splice(0), warnings: [] };
};
