/**
 * The element's VRM controls (src/element/vrm-viewer.ts) in Node, on a real player: the
 * attribute parsers, auto-blink's timing, what a frame writes into the VRM runtime (expression
 * weights from the attribute and from code, the world matrix from the element's placement,
 * the gaze target, springs on/off) and when it stops asking for frames.
 */
import { describe, expect, it } from 'vitest';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { AutoBlink, parseExpressionWeights, parseLookAt, ViewerVrm, type ViewerVrmHost } from '../../src/element/vrm-viewer.ts';
import { loadGltf } from '../../src/gltf/load.ts';

describe('VRM attribute parsers', () => {
  it('expression="name:weight …"', () => {
    expect(parseExpressionWeights('happy:1 blink:0.5, aa')).toEqual(new Map([['happy', 1], ['blink', 0.5], ['aa', 1]]));
    expect(parseExpressionWeights(null)).toEqual(new Map());
    expect(parseExpressionWeights('happy:2')).toBeUndefined();
    expect(parseExpressionWeights('happy:')).toBeUndefined();
    expect(parseExpressionWeights(':0.5')).toBeUndefined();
    expect(parseExpressionWeights('happy:x')).toBeUndefined();
  });

  it('look-at="camera" | "x y z" | none', () => {
    expect(parseLookAt('camera')).toEqual({ kind: 'camera' });
    expect(parseLookAt(null)).toEqual({ kind: 'none' });
    expect(parseLookAt('none')).toEqual({ kind: 'none' });
    expect(parseLookAt('1 1.5m -2')).toEqual({ kind: 'point', point: [1, 1.5, -2] });
    expect(parseLookAt('1 2')).toBeUndefined();
    expect(parseLookAt('up')).toBeUndefined();
  });

  it('auto-blink closes and opens within a quarter second, every 2–5 s', () => {
    const blink = new AutoBlink();
    const closed: number[] = [];
    let wasShut = false;
    for (let t = 0; t < 30; t += 1 / 120) {
      const w = blink.advance(1 / 120);
      expect(w).toBeGreaterThanOrEqual(0);
      expect(w).toBeLessThanOrEqual(1);
      if (w === 1 && !wasShut) closed.push(t);
      wasShut = w === 1;
    }
    expect(closed.length).toBeGreaterThanOrEqual(6);
    expect(closed.length).toBeLessThanOrEqual(15);
    for (let i = 1; i < closed.length; i++) expect(closed[i] - closed[i - 1]).toBeGreaterThan(2);
  });
});

function host(attributes: Record<string, string>, extra: Partial<ViewerVrmHost> = {}): ViewerVrmHost & { warnings: string[]; framesAsked: number } {
  const warnings: string[] = [];
  const h = {
    getAttribute: (n: string) => attributes[n] ?? null,
    hasAttribute: (n: string) => n in attributes,
    placement: () => null,
    eye: () => undefined,
    warn: (m: string) => { warnings.push(m); },
    invalidate: () => { h.framesAsked++; },
    warnings,
    framesAsked: 0,
    ...extra,
  };
  return h;
}

describe('ViewerVrm on the built-in avatar', () => {
  it('writes attribute and code weights, code over attribute; unknown names warn', async () => {
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('vrm-avatar')));
    const h = host({ expression: 'happy:0.6 aa:1 grin:1' });
    const vrm = new ViewerVrm(h);
    expect(vrm.expressionNames(player)).toContain('happy');
    vrm.frame(player, 1 / 60, false);
    const e = player.instance.vrm!.expressions;
    expect(e.weights[e.find('happy')]).toBeCloseTo(0.6, 6);
    expect(e.weights[e.find('aa')]).toBe(1);
    expect(h.warnings.some((w) => /grin.*no such expression/.test(w))).toBe(true);
    vrm.setExpression(player, 'happy', 0.2);
    vrm.frame(player, 1 / 60, false);
    expect(e.weights[e.find('happy')]).toBeCloseTo(0.2, 6);
    vrm.setExpression(player, 'happy', null);
    vrm.frame(player, 1 / 60, false);
    expect(e.weights[e.find('happy')]).toBeCloseTo(0.6, 6);
  });

  it('setExpression and resetSpringBones ask for a frame: a paused avatar at rest draws none by itself', async () => {
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('vrm-avatar')));
    const h = host({});
    const vrm = new ViewerVrm(h);
    vrm.setExpression(player, 'happy', 0.75);
    expect(h.framesAsked).toBe(1);
    vrm.setExpression(player, 'happy', null);
    expect(h.framesAsked).toBe(2);
    vrm.resetSpringBones(player);
    expect(h.framesAsked).toBe(3);
  });

  it('hands the placement to the springs and look-at, looks at the camera, and turns springs off', async () => {
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('vrm-avatar')));
    const placement = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 2, 0, 3, 1]);
    const eye = Float64Array.of(0, 1.7, 3);
    const attributes: Record<string, string> = { 'look-at': 'camera' };
    const vrm = new ViewerVrm(host(attributes, { placement: () => placement, eye: () => eye }));
    expect(vrm.frame(player, 1 / 60, false)).toBe(true);
    const rt = player.instance.vrm!;
    expect(Array.from(rt.worldFromModel)).toEqual(Array.from(placement));
    expect(rt.lookAt!.hasTarget).toBe(true);
    expect(Array.from(rt.lookAt!.target)).toEqual([0, 1.7, 3]);
    attributes['spring-bones'] = 'off';
    delete attributes['look-at'];
    vrm.attributesChanged();
    vrm.frame(player, 1 / 60, false);
    expect(rt.springsEnabled).toBe(false);
    expect(rt.lookAt!.enabled).toBe(false);
  });

  it('asks for frames while the springs move, and stops once they have rested a second', async () => {
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('vrm-avatar')));
    const placement = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const vrm = new ViewerVrm(host({}, { placement: () => placement }));
    // A shove: the model jumps sideways, the hair lags and swings, then settles.
    let frames = 0;
    placement[12] = 0.5;
    while (vrm.frame(player, 1 / 60, false) && frames < 2000) {
      player.update(1 / 60);
      frames++;
    }
    expect(frames).toBeGreaterThan(60);
    expect(frames).toBeLessThan(2000);
  });

  it('a change to an avatar at rest (a turn, a seek) sets its springs moving again: frames follow until they rest anew', async () => {
    const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('vrm-avatar')));
    player.pause();
    const placement = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const vrm = new ViewerVrm(host({}, { placement: () => placement }));
    const rest = (): number => {
      let frames = 0;
      while (vrm.frame(player, 1 / 60, false) && frames < 2000) {
        player.update(1 / 60);
        frames++;
      }
      return frames;
    };
    expect(rest()).toBeLessThan(2000);
    const springs = player.instance.vrm!.springs!;
    const before = springs.currentTail.slice();
    // A quarter turn about the vertical (the element's orientation attribute), drawn as the frame
    // loop draws a change to a paused viewer: first with no time elapsed (it was not drawing).
    placement.set([0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]);
    expect(vrm.frame(player, 0, true)).toBe(true);
    player.update(0);
    const swung = rest();
    expect(swung).toBeGreaterThan(30);
    let moved = 0;
    for (let i = 0; i < before.length; i++) moved = Math.max(moved, Math.abs(springs.currentTail[i] - before[i]));
    expect(moved).toBeGreaterThan(0.01);
    // Any change (here a seek, which the element draws as a change) gives the springs frames to answer it.
    expect(vrm.frame(player, 0, true)).toBe(true);
  });

});

describe('ViewerStage turns a VRM 0.x avatar to face +Z', () => {
  it('by default for 0.x, never for 1.0, and not with vrm0-turn="off"', async () => {
    const { ViewerStage } = await import('../../src/element/stage.ts');
    const v0 = new ViewerStage(await loadGltf(buildBuiltinGlb('vrm0-avatar')));
    const v1 = new ViewerStage(await loadGltf(buildBuiltinGlb('vrm-avatar')));
    v0.setVrm0Turn(true);
    v1.setVrm0Turn(true);
    expect(Array.from(v0.singlePlacement()!.subarray(0, 11), (v) => v + 0)).toEqual([-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1]);
    expect(v1.singlePlacement()).toBeNull();
    v0.setVrm0Turn(false);
    expect(v0.singlePlacement()).toBeNull();
  });
});

/**
 * The element's frame path (FrameLoop.render) in Node for a playing avatar: the VRM controls
 * take the stage's placement, the player steps the pose and the springs, the stage walks the
 * character by the clip's root motion. Returns the spring joints' model-space positions per
 * frame (what the springs do relative to the body) and how far the character travelled.
 */
async function walkVrm({ builtin, rootMotion, springs, frames, pausedFrames }: { builtin: 'vrm-avatar' | 'vrm0-avatar'; rootMotion: boolean; springs: boolean; frames: number; pausedFrames: number }) {
  const { ViewerStage } = await import('../../src/element/stage.ts');
  const model = await loadGltf(buildBuiltinGlb(builtin));
  const player = new AnimationPlayer(model);
  const stage = new ViewerStage(model);
  const walk = model.animations.findIndex((c) => c.name === 'Walk');
  player.setClip(walk);
  player.play();
  stage.setRootMotion(rootMotion, player);
  stage.update(player, 0);
  const vrm = new ViewerVrm(host(springs ? {} : { 'spring-bones': 'off' }, { placement: () => stage.singlePlacement() }));
  const joints = Array.from(model.vrm!.springBones!.jointNode, (n) => model.hierarchy.slotOf[n]);
  const positions: Float64Array[] = [];
  const dt = 1 / 60;
  const start = Float64Array.from((stage.singlePlacement() ?? new Float64Array(16)).subarray(12, 15));
  let travelled = 0, settledAfter = -1;
  for (let f = 0; f < frames + pausedFrames; f++) {
    if (f === frames) {
      const p = stage.singlePlacement();
      if (p) travelled = Math.hypot(p[12] - start[0], p[14] - start[2]);
      player.pause();
    }
    const active = vrm.frame(player, dt, false);
    if (player.playing) player.update(dt);
    else if (active) player.update(dt);
    else if (settledAfter < 0) settledAfter = f - frames;
    stage.update(player, player.playing ? dt : 0);
    const m = player.instance.nodeMatrices, out = new Float64Array(joints.length * 3);
    joints.forEach((s, i) => out.set(m.subarray(s * 16 + 12, s * 16 + 15), i * 3));
    positions.push(out);
  }
  return { positions, travelled, settledAfter };
}

/** Largest distance between corresponding joints of two runs over frames [from, to). */
function largestGap(a: Float64Array[], b: Float64Array[], from: number, to: number): number {
  let gap = 0;
  for (let f = from; f < to; f++) {
    for (let i = 0; i < a[f].length; i += 3) gap = Math.max(gap, Math.hypot(a[f][i] - b[f][i], a[f][i + 1] - b[f][i + 1], a[f][i + 2] - b[f][i + 2]));
  }
  return gap;
}

describe('A walking VRM avatar: the springs react to root motion, then settle', () => {
  // The built-in avatars as built: their chains have no center (as VRoid exports), so the tails
  // keep their inertia in world space.
  for (const builtin of ['vrm-avatar', 'vrm0-avatar'] as const) it(`${builtin}: the hair and skirt lag behind the body while it walks the circle, and come to the same rest once it stops`, async () => {
    const frames = 180, pausedFrames = 360;
    const walking = await walkVrm({ builtin, rootMotion: true, springs: true, frames, pausedFrames });
    const inPlace = await walkVrm({ builtin, rootMotion: false, springs: true, frames, pausedFrames });
    expect(walking.travelled).toBeGreaterThan(0.5);
    expect(inPlace.travelled).toBe(0);
    // Springs off, the joints follow the clip alone: walking or in place, the same to rounding.
    const rigidWalking = await walkVrm({ builtin, rootMotion: true, springs: false, frames, pausedFrames: 0 });
    const rigidInPlace = await walkVrm({ builtin, rootMotion: false, springs: false, frames, pausedFrames: 0 });
    expect(largestGap(rigidWalking.positions, rigidInPlace.positions, 0, frames)).toBeLessThan(1e-9);
    // Springs on, the travel (forward and round the circle) swings them: centimetres apart.
    const swing = largestGap(walking.positions, inPlace.positions, 0, frames);
    console.log(`${builtin} walking vs in place: spring joints up to ${(swing * 100).toFixed(1)} cm apart`);
    expect(swing).toBeGreaterThan(0.01);
    // Stopped, both come to rest (the element stops asking for frames) where the other did.
    expect(walking.settledAfter).toBeGreaterThan(0);
    expect(walking.settledAfter).toBeLessThan(pausedFrames);
    const end = frames + pausedFrames;
    expect(largestGap(walking.positions, inPlace.positions, end - 1, end)).toBeLessThan(0.002);
  });
});


describe('A paused VRM avatar comes to rest whatever the frame times', () => {
  // Frame times as SwiftShader gives them in Chromium (1/60 s up to the frame loop's 0.25 s cap, unevenly).
  const frameTimes = [1 / 60, 0.25, 0.15, 1 / 60, 0.1, 0.1833, 0.0833, 0.2167, 1 / 60, 0.1333, 0.0333];
  for (const builtin of ['vrm-avatar', 'vrm0-avatar'] as const) it(`${builtin}: the element stops asking for frames, and further frames move no tail`, async () => {
    const model = await loadGltf(buildBuiltinGlb(builtin));
    const player = new AnimationPlayer(model);
    player.pause();
    const vrm = new ViewerVrm(host({}));
    let settledAfter = -1;
    for (let f = 0; f < 3000 && settledAfter < 0; f++) {
      const elapsed = frameTimes[f % frameTimes.length];
      if (vrm.frame(player, elapsed, false)) player.update(elapsed);
      else settledAfter = f;
    }
    expect(settledAfter).toBeGreaterThan(0);
    // A hundred more frames (a paused element draws when asked): the tails stay where they rest.
    // (Stepped by the frames' own times, a tail against a collider moved 1-3 mm a frame, for ever.)
    const springs = player.instance.vrm!.springs!;
    const rest = springs.currentTail.slice();
    let moved = 0;
    for (let f = 0; f < 100; f++) {
      player.update(frameTimes[f % frameTimes.length]);
      for (let i = 0; i < rest.length; i++) moved = Math.max(moved, Math.abs(springs.currentTail[i] - rest[i]));
    }
    console.log(`${builtin}: settled after ${settledAfter} frames; then moved ${moved.toExponential(2)} m in 100 frames`);
    expect(moved).toBeLessThan(1e-5);
  });
});
