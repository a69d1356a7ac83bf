import { applyRootMotion, findRootMotions, RootMotionClock, rootMotionStep, turnPlacement, type CrowdRootMotion } from '../anim/crowd-root-motion.ts';
import type { CrowdEvaluator } from '../crowd/evaluator-choice.ts';
import type { AnyCrowd } from '../crowd/gpu-crowd.ts';
import { updateMatricesAndPalettes, type ModelInstance } from '../anim/instance.ts';
import type { AnimationPlayer } from '../anim/player.ts';
import { lockRootInPlace, type RootMotionTrack } from '../anim/root-motion.ts';
import type { Model } from '../gltf/model.ts';
import { rotateVrm0 } from '../anim/vrm/rotate-vrm0.ts';
import type { Bounds } from '../gpu/frame/bounds.ts';
import type { Camera } from '../gpu/frame/camera.ts';
import type { Renderer } from '../gpu/renderer.ts';
import { multiplyMat4, setIdentity } from '../math/trs.ts';
import { isIdentityMat4 } from '../math/trs.ts';
import { transformBounds } from './model-transform.ts';

/** The most instances `instances="N"` draws with the CPU pose evaluator. */
export const MAX_INSTANCES = 4096;
/** The most instances `instances="N"` draws when the crowd is evaluated on the GPU (issue #16). */
export const MAX_GPU_INSTANCES = 100_000;

/** `crowd-evaluator`: where a crowd's poses are evaluated (createCrowd's `evaluator` option). */
export const DEFAULT_CROWD_EVALUATOR: CrowdEvaluator = 'auto';

/** The setting a `crowd-evaluator` value names (case-insensitive, trimmed), or undefined. */
export function parseCrowdEvaluator(value: string | null): CrowdEvaluator | undefined {
  const v = value?.trim().toLowerCase();
  return v === 'cpu' || v === 'gpu' || v === 'auto' ? v : undefined;
}

/** Warns about a malformed `instances` or `crowd-evaluator` value (the properties fall back by themselves). */
export function checkCrowdAttribute(name: string, value: string | null, warn: (message: string) => void): void {
  if (value === null) return;
  if (name === 'instances' && (value.trim() === '' || !Number.isFinite(Number(value)))) warn(`instances="${value}" is not a number; drawing 1`);
  if (name === 'crowd-evaluator' && parseCrowdEvaluator(value) === undefined) warn(`crowd-evaluator="${value}" is not cpu, gpu or auto; using ${DEFAULT_CROWD_EVALUATOR}`);
}

/** What the stage builds crowds with: src/crowd's evaluator choice and crowds (the GPU evaluator's WGSL inside). */
type CrowdCode = typeof import('../crowd/evaluator-choice.ts') & typeof import('../crowd/gpu-crowd.ts');
let crowdCode: CrowdCode | undefined;
let crowdCodeLoading: Promise<CrowdCode> | undefined;

/**
 * Imports the crowd code, once per page: the viewer asks for it when `instances` is above 1, so
 * a page that shows one character never fetches it (its first load). Resolves at once after the
 * first time; a failed import is tried again by the next call.
 */
export function loadCrowdCode(): Promise<CrowdCode> {
  crowdCodeLoading ??= Promise.all([import('../crowd/evaluator-choice.ts'), import('../crowd/gpu-crowd.ts')]).then(
    ([choice, crowds]) => (crowdCode = { ...choice, ...crowds }),
    (error: unknown) => {
      crowdCodeLoading = undefined;
      throw error;
    },
  );
  return crowdCodeLoading;
}

/** With root motion, one character walks a circle this many framing radii wide around the origin. */
const CIRCLE_RADIUS_SCALE = 1.5;
/** Crowd grid spacing, in widths of the character's in-place footprint. */
const GRID_SPACING_SCALE = 1.25;
/** Crowd members play at the viewer's speed times a factor in [1 − SPREAD, 1 + SPREAD]. */
const SPEED_SPREAD = 0.15;

/**
 * A requested instance count: floored and clamped to 1…MAX_GPU_INSTANCES (NaN draws 1). A
 * crowd on the CPU evaluator draws at most MAX_INSTANCES of them (ViewerStage.setInstances).
 */
export function clampInstances(n: number): number {
  return Math.max(1, Math.min(MAX_GPU_INSTANCES, Math.floor(n) || 1));
}

/** A small deterministic generator (mulberry32): the same crowd on every load and in tests. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What the viewer draws around its player: root motion and crowds.
 *  - Clips whose root travels (the built-in Walk) play in place by default: the root is
 *    locked where the clip starts, so the framed character does not slide off and snap back.
 *  - With `rootMotion`, the one character walks instead, steering on a circle around the
 *    origin (so it never leaves the framed area).
 *  - With `instances` > 1 a `Crowd` is drawn: a grid of copies playing the player's clip,
 *    each from its own random phase at a slightly different speed; with root motion they
 *    walk and wrap around the grid's area.
 * The per-frame calls allocate nothing; changing `instances` may grow the crowd once.
 */
export class ViewerStage {
  /** Root motion of each clip, for the player (undefined: the clip plays in place). */
  private motions: readonly (CrowdRootMotion | undefined)[] = [];
  /** Their tracks, which the player locks (AnimationPlayer.rootLocks). */
  private rootLocks: readonly (RootMotionTrack | undefined)[] = [];
  private instanceCount = 1;
  private walking = false;
  private crowd: AnyCrowd | undefined;
  /** `crowd-evaluator`. */
  evaluator: CrowdEvaluator = DEFAULT_CROWD_EVALUATOR;
  /** The device a GPU evaluator runs on (the viewer's, once it has one): set by `useDevice` alone. */
  private device: GPUDevice | undefined;
  /** The evaluator and device the crowd was built with. */
  private builtFor: CrowdEvaluator | undefined;
  private builtOn: GPUDevice | undefined;
  /** The instance count last asked for (before the CPU evaluator's cap). */
  private requested = 1;
  /** Per crowd member: clip phase (0…1) and speed factor. */
  private phases = new Float64Array(0);
  private speedFactors = new Float64Array(0);
  /** The clip the crowd was last told to play. */
  private crowdClip = -1;
  /** Seconds a clip change crossfades the crowd (the viewer's crossfade). */
  fadeSeconds = 0.3;
  private readonly area = new Float64Array(4);
  private spacing = 1;
  /** The one character's placement (root motion) and its steering. */
  private readonly placement = new Float64Array(16);
  /** `orientation` and `scale` (identity unless set); that turned by the turntable; the one character's placement times it. */
  private readonly base4 = new Float64Array(16);
  private readonly model4 = new Float64Array(16);
  private transformed = false;
  private readonly placed = new Float64Array(16);
  /**
   * A VRM 0.x avatar faces −Z: unless `vrm0-turn="off"`, it is drawn turned half round about +Y
   * under orientation and scale (`rotateVrm0`, three-vrm's rotateVRM0), so it faces the default camera.
   */
  private vrm0Turn = false;
  /** The turntable angle applied (radians about +Y) and its rotation matrix. */
  private readonly turntable = new Float64Array(1);
  private readonly turn4 = new Float64Array(16);
  private readonly moved = new Float64Array(1);
  private readonly turns = new Float64Array(1);
  private readonly delta = new Float64Array(4);
  private readonly singleList: ModelInstance[] = [];
  private radius = 1;
  /** The player's clip and time after the last frame (for its root motion since then). */
  private lastClip = -1;
  private lastTime = 0;
  private readonly clock = new Float64Array(4);
  /** The player's clip sweep with the root in place. */
  private base: Bounds | undefined;
  /** Set when the base bounds are out of date: what computes them again. */
  private staleBase: (() => Bounds) | undefined;
  /**
   * Called when a crowd asked for before the crowd code had arrived (setInstances) is built:
   * the viewer frames it and draws. Not called for a retired stage, which builds nothing.
   */
  crowdBuilt: (() => void) | undefined;
  /** The player the last setInstances was for: the one a crowd built later follows. */
  private crowdPlayer: AnimationPlayer | undefined;
  private retired = false;

  constructor(readonly model: Model) {
    this.findRootMotions();
    setIdentity(this.placement);
    setIdentity(this.base4);
    setIdentity(this.model4);
    setIdentity(this.placed);
    setIdentity(this.turn4);
    this.singleList.length = 1;
  }

  /** `orientation` / `scale` as a matrix (the one character's; a crowd keeps its grid). */
  setModelMatrix(m: ArrayLike<number>): void {
    for (let i = 0; i < 16; i++) this.base4[i] = m[i];
    this.syncModel();
  }

  /** Turns a VRM 0.x model to face +Z (on, the element's default) or not; other models are never turned. */
  setVrm0Turn(on: boolean): void {
    const turn = on && this.model.vrm?.specVersion === 0;
    if (turn === this.vrm0Turn) return;
    this.vrm0Turn = turn;
    this.syncModel();
  }

  /** `auto-rotate`'s turntable: the model turns about +Y (radians), over orientation and scale. Allocates nothing. */
  setTurntable(angle: number): void {
    if (angle === this.turntable[0]) return;
    this.turntable[0] = angle;
    const c = Math.cos(angle), s = Math.sin(angle), t = this.turn4;
    t[0] = c; t[2] = -s; t[8] = s; t[10] = c;
    this.syncModel();
  }

  /** The model's own box (the clip sweep, in place) after `orientation` and `scale` (and a VRM 0.x turn; not the turntable). */
  modelBounds(): Bounds {
    this.refreshBase();
    if (this.vrm0Turn) {
      const m = this.base4.slice();
      rotateVrm0(this.model, m, m);
      return transformBounds(this.base!, m);
    }
    return isIdentityMat4(this.base4) ? this.base! : transformBounds(this.base!, this.base4);
  }

  private syncModel(): void {
    multiplyMat4(this.turn4, this.base4, this.model4);
    if (this.vrm0Turn) rotateVrm0(this.model, this.model4, this.model4);
    this.transformed = !isIdentityMat4(this.model4);
    this.syncPlaced();
  }

  private syncPlaced(): void {
    multiplyMat4(this.placement, this.model4, this.placed);
  }

  get instances(): number { return this.instanceCount; }
  /**
   * Where the one character is drawn: its root-motion placement times `orientation`, `scale`
   * and the turntable (what `render` draws it with); null when that is the identity or a
   * crowd is drawn.
   */
  singlePlacement(): Float64Array | null {
    if (this.instanceCount !== 1) return null;
    return this.transformed ? this.placed : this.walking ? this.placement : null;
  }
  get rootMotion(): boolean { return this.walking; }

  /**
   * Root motion of each clip, for the player and the crowd, which shares the table (undefined:
   * the clip plays in place); found again when the rest pose changes.
   */
  get rootMotions(): readonly (CrowdRootMotion | undefined)[] {
    return this.motions;
  }

  /** Each clip's root motion, from the rest pose (load time, and when the rest pose changes). */
  private findRootMotions(): void {
    this.motions = findRootMotions(this.model);
    this.rootLocks = this.motions.map((m) => m?.track);
  }

  /** Whether the player's clip has root motion to show. */
  hasRootMotion(player: AnimationPlayer): boolean {
    return player.clip >= 0 && this.rootMotions[player.clip] !== undefined;
  }

  /**
   * Has the player lock its root in place whenever its clip travels (AnimationPlayer.rootLocks:
   * inside its pose step, so node matrices and palettes are made once); the first time, also
   * locks the pose it holds now and recomputes its matrices. Allocates nothing after that.
   */
  lockRoot(player: AnimationPlayer): void {
    if (player.rootLocks === this.rootLocks) return;
    player.rootLocks = this.rootLocks;
    const m = player.clip >= 0 ? this.rootMotions[player.clip] : undefined;
    if (m === undefined) return;
    lockRootInPlace(m.track, player.instance.pose);
    updateMatricesAndPalettes(player.instance);
  }

  /**
   * The model's rest transforms changed (an `<extra-model>` moved): the base bounds are
   * `recompute`d when next asked for (a page may move one every frame), and a crowd, which
   * copied the rest pose when it was built, is built again.
   */
  restChanged(player: AnimationPlayer, recompute: () => Bounds): void {
    this.staleBase = recompute;
    // From the new rest pose, as a crowd built now finds them.
    this.findRootMotions();
    if (player.rootLocks !== undefined) player.rootLocks = this.rootLocks;
    if (!this.crowd) return;
    this.crowd.destroy();
    this.crowd = undefined;
    if (this.requested > 1) this.setInstances(this.requested, player);
  }

  private refreshBase(): void {
    if (this.staleBase) this.setBaseBounds(this.staleBase());
  }

  /** The framing box of the in-place clip sweep; call before `framingBounds`. */
  setBaseBounds(bounds: Bounds): void {
    this.staleBase = undefined;
    this.base = bounds;
    const width = Math.max(bounds.max[0] - bounds.min[0], bounds.max[2] - bounds.min[2], 0.5 * (bounds.max[1] - bounds.min[1]));
    this.spacing = GRID_SPACING_SCALE * width;
    this.radius = CIRCLE_RADIUS_SCALE * bounds.radius;
  }

  /** The box the camera frames: the clip's sweep, spread over the crowd's area or the walking circle. Allocates. */
  framingBounds(): Bounds {
    this.refreshBase();
    const b = this.instanceCount > 1 ? this.base! : this.modelBounds();
    const min = Float32Array.from(b.min), max = Float32Array.from(b.max);
    if (this.crowd && this.instanceCount > 1) {
      min[0] += this.area[0]; min[2] += this.area[1];
      max[0] += this.area[2]; max[2] += this.area[3];
    } else if (this.walking) {
      min[0] -= this.radius; min[2] -= this.radius;
      max[0] += this.radius; max[2] += this.radius;
    }
    const center = Float32Array.of((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
    const radius = Math.max(1e-6, Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2);
    return { min, max, center, radius };
  }

  /** Turns root motion on or off: the character(s) start over from their home places. */
  setRootMotion(on: boolean, player: AnimationPlayer): void {
    this.walking = on;
    this.resetSingle(player);
    if (this.crowd) {
      this.crowd.rootMotion = on;
      this.crowd.placeOnGrid(this.spacing, this.area);
    }
  }

  /**
   * The device frames draw with (the viewer's, undefined before it has one; a new one after a
   * device loss): a crowd that may be evaluated on the GPU is built again on it. The one place
   * the stage's device is set. Allocates only when the device changes.
   */
  useDevice(device: GPUDevice | undefined, player: AnimationPlayer): void {
    if (device === this.device) return;
    this.device = device;
    if (this.requested > 1 && this.evaluator !== 'cpu') this.setInstances(this.requested, player);
  }

  /** Where the crowd's poses are evaluated now: 'gpu' when its palettes come from the GPU. */
  get evaluating(): 'cpu' | 'gpu' {
    return this.crowd?.gpu ? 'gpu' : 'cpu';
  }

  /**
   * Draws `n` instances (clamped to 1…MAX_GPU_INSTANCES, and to MAX_INSTANCES when the crowd is
   * evaluated on the CPU); more than the crowd holds, or another `evaluator` or `device`, builds
   * a new one. Before the crowd code is loaded (loadCrowdCode), one character is drawn while it
   * is fetched; the crowd is built when it arrives, and `crowdBuilt` called.
   */
  setInstances(n: number, player: AnimationPlayer): void {
    let count = clampInstances(n);
    this.requested = count;
    this.instanceCount = count;
    this.crowdPlayer = player;
    if (count === 1) return;
    const code = crowdCode;
    if (!code) {
      this.instanceCount = 1;
      this.awaitCrowdCode();
      return;
    }
    const { AUTO_GPU_MIN_INSTANCES, gpuCrowdUnsupported } = code;
    if (!this.crowd || this.crowd.capacity < count || this.builtFor !== this.evaluator || this.builtOn !== this.device) {
      // Grown by doubling, so a slider dragged up rebuilds the crowd a few times, not at every step.
      const grown = Math.max(count, this.builtFor === this.evaluator ? 2 * (this.crowd?.capacity ?? 0) : 0);
      // Without a device (not yet, or none), or for a model whose clips move meshes
      // (gpuCrowdUnsupported), only the CPU can evaluate it.
      const unsupported = this.evaluator !== 'cpu' ? gpuCrowdUnsupported(this.model) : undefined;
      // 'auto' says so too (a VRM avatar's springs, for one), where the GPU would have taken the crowd.
      if (unsupported && (this.evaluator === 'gpu' || (this.device && count >= AUTO_GPU_MIN_INSTANCES))) {
        console.warn(`<skinned-mesh-viewer>: crowd-evaluator="${this.evaluator}": ${this.model.name}: ${unsupported}; the crowd is evaluated on the CPU`);
      }
      const gpuPossible = this.evaluator !== 'cpu' && this.device !== undefined && !unsupported;
      let crowd = this.buildCrowd(code, Math.min(gpuPossible ? MAX_GPU_INSTANCES : MAX_INSTANCES, grown), gpuPossible ? this.evaluator : 'cpu');
      // The CPU evaluator took it (the setting, 'auto' below its crossover, or no GPU): no bigger than its cap.
      if (!crowd.gpu && crowd.capacity > MAX_INSTANCES) crowd = this.buildCrowd(code, MAX_INSTANCES, 'cpu');
      this.crowd = crowd;
    }
    const crowd = this.crowd;
    if (!crowd.gpu) count = Math.min(count, MAX_INSTANCES);
    this.instanceCount = count;
    crowd.count = count;
    crowd.rootMotion = this.walking;
    crowd.placeOnGrid(this.spacing, this.area);
    this.crowdClip = player.clip;
    const duration = player.duration;
    for (let k = 0; k < crowd.capacity; k++) crowd.play(k, player.clip, this.phases[k] * duration);
  }

  private awaitCrowdCode(): void {
    loadCrowdCode().then(() => {
      const player = this.crowdPlayer;
      if (this.retired || this.requested === 1 || !player) return;
      this.setInstances(this.requested, player);
      this.crowdBuilt?.();
    }, (error: unknown) => {
      console.warn(`<skinned-mesh-viewer>: instances="${this.requested}": the crowd code could not be loaded (${(error as Error).message}); drawing 1`);
    });
  }

  /** The viewer no longer draws this stage (another model, or none): frees its crowd and builds no other. */
  retire(): void {
    this.retired = true;
    this.crowd?.destroy();
    this.crowd = undefined;
  }

  private buildCrowd(code: CrowdCode, capacity: number, evaluator = this.evaluator): AnyCrowd {
    // A GPU-evaluated crowd holds GPU buffers: free them.
    this.crowd?.destroy();
    const crowd = code.createCrowd(this.model, capacity, { evaluator, device: this.device, rootMotions: this.motions });
    const next = random(17);
    this.phases = Float64Array.from({ length: capacity }, next);
    this.speedFactors = Float64Array.from({ length: capacity }, () => 1 - SPEED_SPREAD + 2 * SPEED_SPREAD * next());
    this.builtFor = this.evaluator;
    this.builtOn = this.device;
    return crowd;
  }

  private resetSingle(player: AnimationPlayer): void {
    setIdentity(this.placement);
    // On the circle's left edge, facing +Z: turning right (towards +X) circles the origin.
    if (this.walking) this.placement[12] = -this.radius;
    this.syncPlaced();
    this.lastClip = player.clip;
    this.lastTime = player.time;
  }

  /**
   * After the player evaluated this frame (`dt` seconds, 0 when paused): with root motion,
   * moves and steers the one character by what the root travelled since the last frame (the
   * player holds the root itself in place: lockRoot); advances the crowd. Allocates nothing.
   */
  update(player: AnimationPlayer, dt: number): void {
    const clip = player.clip;
    const m = clip >= 0 ? this.rootMotions[clip] : undefined;
    if (m !== undefined) {
      if (this.walking && this.instanceCount === 1 && dt > 0 && clip === this.lastClip) {
        const clock = this.clock;
        // The job is the crowd's too, which may have left its ends marked known.
        m.job.fromKnown = m.job.toKnown = false;
        clock[RootMotionClock.PREVIOUS] = this.lastTime;
        clock[RootMotionClock.TIME] = player.time;
        clock[RootMotionClock.STEP] = dt * player.speed;
        clock[RootMotionClock.DURATION] = player.duration;
        rootMotionStep(m, clock, this.delta);
        applyRootMotion(m, this.delta, this.placement, 0, this.moved);
        // Steer: turning by distance / radius walks a circle of that radius.
        this.turns[0] = this.moved[0] / this.radius;
        turnPlacement(this.placement, 0, this.turns);
            this.syncPlaced();
      }
      this.lockRoot(player);
    }
    this.lastClip = clip;
    this.lastTime = player.time;
    const crowd = this.crowd;
    if (!crowd || this.instanceCount === 1) return;
    if (clip !== this.crowdClip) {
      this.crowdClip = clip;
      const duration = clip >= 0 ? player.model.animations[clip].duration : 0;
      for (let k = 0; k < crowd.count; k++) {
        // Paused, a crossfade would never advance: cut, as the player does.
        if (clip < 0) crowd.play(k, -1);
        else if (player.playing) crowd.crossfade(k, clip, this.fadeSeconds, this.phases[k] * duration);
        else crowd.play(k, clip, this.phases[k] * duration);
      }
    }
    const speed = player.speed;
    for (let k = 0; k < crowd.count; k++) crowd.speed[k] = speed * this.speedFactors[k];
    crowd.update(dt);
    if (this.walking) crowd.wrapPlacements(this.area);
  }

  /** Draws the crowd, or the player's instance at its placement. */
  render(renderer: Renderer, target: GPUTexture, camera: Camera, player: AnimationPlayer): void {
    const crowd = this.crowd;
    if (crowd && this.instanceCount > 1) {
      renderer.renderCrowd(target, camera, crowd, crowd.gpu);
    } else if (this.transformed) {
      this.singleList[0] = player.instance;
      renderer.renderInstances(target, camera, this.singleList, 1, this.placed);
    } else if (this.walking) {
      this.singleList[0] = player.instance;
      renderer.renderInstances(target, camera, this.singleList, 1, this.placement);
    } else {
      renderer.render(target, camera, player.instance);
    }
  }
}
