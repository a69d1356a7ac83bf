// Tier 3 in your own loop: the clip's pose, edited by an IK job between sampling and the palettes.
import {
  AnimationPlayer, buildBuiltinGlb, computeInstanceBounds, createCanvasRenderer, findSlot, loadGltf, observeCanvasSize, OrbitCamera,
  TwoBoneIKJob, updateMatricesAndPalettes,
} from 'skinned-mesh-webgpu';

const canvas = document.querySelector('canvas')!;
const { device, context, renderer } = await createCanvasRenderer(canvas, { label: 'character' });
const model = await loadGltf(buildBuiltinGlb('character'), { name: 'character' });
await renderer.setModel(model);

const player = new AnimationPlayer(model);
player.setClip(player.findClip('Idle'));
player.play();

// The job reads and writes the player's own pose. Its target and pole are arrays it reads at every run():
// change their numbers, never the arrays. Model space, metres; +Z is the character's front.
const target = new Float64Array(3);
const pole = Float64Array.of(0, -0.5, -1); // the elbow points down and back
const { pose, nodeMatrices } = player.instance;
const slot = (name: string) => findSlot(model, name);
const reach = new TwoBoneIKJob(model.hierarchy, pose, nodeMatrices, slot('UpperArm.L'), slot('LowerArm.L'), slot('Hand.L'), target, pole);
reach.validate(); // throws, naming the rule, if a slot or a number is wrong

const camera = new OrbitCamera();
const bounds = computeInstanceBounds(player.instance);
observeCanvasSize(canvas, device, (width, height) => camera.frame(bounds, width / height));

let last = performance.now();
let clock = 0;
requestAnimationFrame(function frame(now) {
  const dt = (now - last) / 1000;
  last = now;
  clock += dt;
  player.update(dt); // the clip's pose, joint matrices and palettes
  target[0] = 0.35 + 0.12 * Math.cos(2 * clock);
  target[1] = 1.25 + 0.12 * Math.sin(2 * clock);
  target[2] = 0.3;
  reach.run(); // rewrites two local rotations of the pose
  updateMatricesAndPalettes(player.instance); // the joint matrices and palettes of the edited pose
  renderer.render(context.getCurrentTexture(), camera, player.instance);
  requestAnimationFrame(frame);
});
