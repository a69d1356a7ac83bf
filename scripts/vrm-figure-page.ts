/**
 * The right half of docs/vrm-side-by-side.png (scripts/vrm-figure.ts drives it): the same
 * built-in VRM 1.0 avatar drawn by three-vrm 3.5 with three.js's WebGLRenderer, posed as the
 * left half (Idle at 0.5 s, `happy` at 1, springs settled), from the camera the element settled
 * on. Its materials are MToon on both sides (three-vrm's MToonMaterial here), lit by the
 * element's default key light and hemisphere: the pose, springs, expression and toon look are
 * the comparison; the lighting is close, not equal (ours adds its studio environment).
 */
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { RoomEnvironment } from 'three/examples/jsm/environments/RoomEnvironment.js';
import { VRMLoaderPlugin, type VRM } from '@pixiv/three-vrm';
import { buildBuiltinGlb } from '../src/builtin/index.ts';

const TIME = 0.5;

/** The left half's camera (model-viewer's orbit: radians, metres; vertical field of view in degrees). */
export interface FigureCamera { theta: number; phi: number; radius: number; target: number[]; fov: number }

async function draw(view: FigureCamera): Promise<string> {
  const canvas = document.getElementById('three') as HTMLCanvasElement;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(canvas.width, canvas.height, false);
  renderer.setClearColor(0xf6f6f3, 1);
  const scene = new THREE.Scene();
  // As near the element's default look as three.js has: a generated room for image-based lighting
  // (ours is a generated studio) and Khronos PBR Neutral tone mapping (ours too).
  renderer.toneMapping = THREE.NeutralToneMapping;
  scene.environment = new THREE.PMREMGenerator(renderer).fromScene(new RoomEnvironment(), 0.04).texture;
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser, { autoUpdateHumanBones: false }));
  const bytes = buildBuiltinGlb('vrm-avatar');
  const gltf = await loader.parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, '');
  const vrm = gltf.userData.vrm as VRM;
  scene.add(vrm.scene);
  const mixer = new THREE.AnimationMixer(vrm.scene);
  mixer.clipAction(gltf.animations.find((c) => c.name === 'Idle')!).play();
  mixer.setTime(TIME);
  vrm.expressionManager!.setValue('happy', 1);
  vrm.scene.updateMatrixWorld(true);
  vrm.springBoneManager?.setInitState();
  // The springs settle under gravity, as the left half's do before it is captured.
  for (let i = 0; i < 120; i++) {
    mixer.setTime(TIME);
    vrm.update(1 / 60);
  }
  const camera = new THREE.PerspectiveCamera(view.fov, canvas.width / canvas.height, 0.05, 50);
  const target = new THREE.Vector3().fromArray(view.target), { theta, phi, radius } = view;
  camera.position.set(radius * Math.sin(phi) * Math.sin(theta), radius * Math.cos(phi), radius * Math.sin(phi) * Math.cos(theta)).add(target);
  camera.lookAt(target);
  // The avatar is MToon, which three-vrm lights by punctual and hemisphere lights only (not the
  // room environment): the element's defaults as three.js lights (RenderSettings: a key light of
  // intensity 3 from (0.45, 0.75, 0.5) in view space, the sky/ground hemisphere; three.js's
  // HemisphereLight of intensity π reflects what ours does, as test/browser/pages/mtoon-page.ts).
  const linear = (r: number, g: number, b: number) => new THREE.Color().setRGB(r, g, b, THREE.LinearSRGBColorSpace);
  const key = new THREE.DirectionalLight(linear(1, 0.98, 0.95), 3);
  key.position.set(0.45, 0.75, 0.5).applyQuaternion(camera.quaternion);
  scene.add(key, key.target, new THREE.HemisphereLight(linear(0.42, 0.45, 0.5), linear(0.16, 0.14, 0.12), Math.PI));
  renderer.render(scene, camera);
  return canvas.toDataURL('image/png');
}

(window as unknown as { drawThreeVrm: typeof draw }).drawThreeVrm = draw;
