import type { AnimationPlayer } from '../anim/player.ts';
import { backgroundBuildsSettled, backgroundBuildsStarted } from '../gpu/device/background-build.ts';
import { canvasPixelSize, type PixelSize } from '../gpu/device/device.ts';
import type { ViewerCamera } from './camera/framing.ts';
import type { GpuSession, GpuState } from './gpu-session.ts';
import type { ViewerStage } from './stage.ts';

/** A long stall (a background tab, a debugger) must not make the animation jump ahead. */
const MAX_FRAME_SECONDS = 0.25;
/** Fallback texture limit before a device is known (WebGPU's guaranteed minimum). */
const DEFAULT_MAX_TEXTURE_DIMENSION = 8192;

/** See `SkinnedMeshViewerElement.stats`. Times in milliseconds of the last frame. */
export interface ViewerStats {
  poseMs: number;
  encodeMs: number;
  /** undefined when the adapter has no timestamp queries. */
  gpuMs: number | undefined;
  drawCalls: number;
  vertices: number;
  triangles: number;
  joints: number;
  /** Model instances drawn (the `instances` attribute once a crowd is shown). */
  instances: number;
  /** Instances left out of the last frame by frustum culling (their skinned bounds were outside the view). */
  culled: number;
  /** Bytes the last frame wrote to the GPU (RenderStats.bytesUploaded). */
  bytesUploaded: number;
}

/** What a frame draws, asked of the element each frame (the answers allocate nothing). */
export interface FrameLoopHost {
  /** The shown model's player; undefined while nothing is shown. */
  player(): AnimationPlayer | undefined;
  /** Root motion and the crowd around the player. */
  stage(): ViewerStage | undefined;
  /** SkinnedMeshViewerElement.beforeRender. */
  beforeRender(): ((player: AnimationPlayer, dt: number) => void) | null;
  /** The player's clip reached its end this frame. */
  animationEnded(player: AnimationPlayer): void;
  /** Advances the playing player by `dt` seconds (its update, with the element's passes and layer ramps). */
  advance(player: AnimationPlayer, dt: number): void;
  /**
   * A VRM avatar's settings onto the player before the pose (vrm-viewer.ts); true while it needs
   * frames though paused. `changed`: this frame draws a change (`invalidate`).
   */
  vrm(player: AnimationPlayer, elapsed: number, changed: boolean): boolean;
  /** A frame was drawn into the canvas (the poster comes down, hotspots follow it; must allocate nothing). */
  frameDrawn(): void;
  /** The camera moved in the frame just drawn (must allocate nothing). */
  cameraChanged(): void;
}

/**
 * When the element draws: at most one animation frame pending, requested only with a model
 * on the GPU; again after a frame only while the element is on screen and the animation
 * plays; otherwise a frame follows each visible change (`invalidate`). A change draws one
 * frame even off screen (a load, a resize that cleared the canvas), so a viewer scrolled
 * into view already shows its model, not an empty box, while it animates only on screen.
 * Also keeps the canvas at its device-pixel size.
 */
export class FrameLoop {
  private rafId = 0;
  private lastFrameTime = -1;
  private visible = false;
  /** The canvas does not show the current state (nothing drawn yet, a change, a resize): one frame is due, on screen or not. */
  private stale = true;
  /** CPU milliseconds of the last pose evaluation (see `stats`). */
  private poseMs = 0;
  /** Bound once so that scheduling allocates nothing. */
  private readonly frame = (time: number): void => this.render(time);
  private readonly pixelSize: PixelSize = { width: 0, height: 0 };
  /** The ResizeObserver has reported the canvas's size since the element was put on the page. */
  private sizeReported = false;
  /** Called with true by the next frame drawn (false: none will be; see buildsSettled). */
  private readonly drawnWaiters: ((drawn: boolean) => void)[] = [];
  private readonly liveStats: ViewerStats = { poseMs: 0, encodeMs: 0, gpuMs: undefined, drawCalls: 0, vertices: 0, triangles: 0, joints: 0, instances: 0, culled: 0, bytesUploaded: 0 };

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly session: GpuSession,
    private readonly view: ViewerCamera,
    private readonly host: FrameLoopHost,
  ) {}

  /** Width over height of the canvas in pixels. */
  get aspect(): number {
    return this.canvas.width / Math.max(1, this.canvas.height);
  }

  /** The element entered or left the viewport. */
  setVisible(visible: boolean): void {
    this.visible = visible;
    if (visible) this.schedule();
    else this.cancel();
  }

  /** The element left the page: no frame until it is seen again. */
  stop(): void {
    this.cancel();
    this.visible = false;
    // Observed again on re-insertion: sized from layout until that observation's first report.
    this.sizeReported = false;
  }

  /**
   * Resolves once every pipeline the element's frames ask for has arrived or failed: the
   * page's background builds have settled, and a frame drawn after that (one is drawn, off
   * screen too) started no other. Without a model on the GPU, or when frames stop (the element
   * leaves the page or the screen, its model is cleared), once the builds under way have settled.
   */
  async buildsSettled(): Promise<void> {
    for (;;) {
      if (!this.session.gpu || !this.host.player()) return;
      await backgroundBuildsSettled();
      const started = backgroundBuildsStarted();
      const drawn = await new Promise<boolean>((resolve) => {
        this.drawnWaiters.push(resolve);
        this.invalidate();
      });
      if (!drawn || backgroundBuildsStarted() === started) return;
    }
  }

  private frameDrawn(drawn: boolean): void {
    if (this.drawnWaiters.length === 0) return;
    for (const resolve of this.drawnWaiters.splice(0)) resolve(drawn);
  }

  /** Whether the element is on screen (the IntersectionObserver's last word). */
  get onScreen(): boolean {
    return this.visible;
  }

  /** Something visible changed: draw one frame (off screen too). */
  invalidate(): void {
    this.stale = true;
    this.schedule();
  }

  cancel(): void {
    if (this.rafId !== 0) cancelAnimationFrame(this.rafId);
    this.rafId = 0;
    this.lastFrameTime = -1;
    this.frameDrawn(false);
  }

  /** The ResizeObserver's report: the canvas's exact size in device pixels. */
  resized(entry: ResizeObserverEntry): void {
    this.sizeReported = true;
    this.applySize(entry);
  }

  /**
   * Before a model's `load` and first frame: the canvas's size from layout when the
   * ResizeObserver has not reported yet (it reports after the next animation frame's callbacks,
   * so a `load` listener's capture and the first frame would get the default 300×150). Its
   * report, when it comes, gives the exact size. Not laid out (display: none): left as it is.
   */
  sizeFromLayout(): void {
    if (this.sizeReported) return;
    const rect = this.canvas.getBoundingClientRect();
    if (rect.width > 0 && rect.height > 0) this.applySize({ contentBoxSize: [], devicePixelContentBoxSize: [], contentRect: rect });
  }

  private applySize(entry: Pick<ResizeObserverEntry, 'contentBoxSize' | 'devicePixelContentBoxSize' | 'contentRect'>): void {
    const max = this.session.gpu?.device.limits.maxTextureDimension2D ?? DEFAULT_MAX_TEXTURE_DIMENSION;
    const size = canvasPixelSize(entry, globalThis.devicePixelRatio || 1, max, this.pixelSize);
    if (this.canvas.width === size.width && this.canvas.height === size.height) return;
    // Resizing clears the canvas, so a frame must follow.
    this.canvas.width = size.width;
    this.canvas.height = size.height;
    this.view.setAspect(this.aspect);
    this.invalidate();
  }

  /** Draws the player's pose (or the stage's crowd) into `target` from the current camera. */
  draw(gpu: GpuState, target: GPUTexture, player: AnimationPlayer, stage: ViewerStage | undefined): void {
    if (stage) {
      stage.useDevice(gpu.device, player);
      // auto-rotate's turntable goes into the stage's model matrix for every draw, a capture's too.
      stage.setTurntable(this.view.turntable);
      stage.render(gpu.renderer, target, this.view.camera, player);
    }
    else gpu.renderer.render(target, this.view.camera, player.instance);
  }

  /**
   * What the last frame cost: the renderer's counters plus the pose time, in one object
   * updated in place; undefined until a model is on the GPU.
   */
  stats(): ViewerStats | undefined {
    const gpu = this.session.gpu;
    if (!gpu || !this.host.player()) return undefined;
    const s = gpu.renderer.stats;
    const out = this.liveStats;
    out.poseMs = this.poseMs;
    out.encodeMs = s.encodeMs;
    out.gpuMs = s.gpuMs;
    out.drawCalls = s.drawCalls;
    out.vertices = s.vertices;
    out.triangles = s.triangles;
    out.joints = s.joints;
    out.instances = s.instances;
    out.culled = s.culled;
    out.bytesUploaded = s.bytesUploaded;
    return out;
  }

  private schedule(): void {
    if (this.rafId !== 0 || !(this.visible || this.stale) || !this.session.gpu || !this.host.player()) return;
    this.rafId = requestAnimationFrame(this.frame);
  }

  /** The per-frame path: advance, draw, and ask for another frame only while playing. Allocates nothing. */
  private render(time: number): void {
    this.rafId = 0;
    const gpu = this.session.gpu, player = this.host.player();
    if (!gpu || !player || gpu.uploaded !== player.model || !(this.visible || this.stale)) {
      this.lastFrameTime = -1;
      // Without a model no frame will come; one being uploaded is drawn once it is there.
      if (!gpu || !player) this.frameDrawn(false);
      return;
    }
    const changed = this.stale;
    this.stale = false;
    let ended = false;
    const hook = this.host.beforeRender();
    let dt = 0;
    const elapsed = this.lastFrameTime < 0 ? 0 : Math.min(MAX_FRAME_SECONDS, (time - this.lastFrameTime) / 1000);
    // Pose time: the player and the stage (root motion, the crowd).
    const started = performance.now();
    const advancing = player.playing;
    // MToon UV animation runs on wall time, as springs do.
    const vrmActive = this.host.vrm(player, elapsed, changed) || (player.instance.materialAnimation?.uvAnimated ?? false);
    if (advancing) {
      dt = elapsed;
      this.host.advance(player, dt);
      ended = player.ended;
    } else if (vrmActive) {
      // A paused clip holds, but the avatar's springs, blinks, gaze and scrolling textures move on.
      player.update(elapsed);
    } else if (hook !== null) {
      // The hook edits the pose in place; start it from the clip again, not from its last edit.
      player.evaluate();
    }
    const stage = this.host.stage();
    stage?.update(player, dt);
    if (advancing) this.poseMs = performance.now() - started;
    if (hook !== null) hook(player, dt);
    const cameraMoved = this.view.update(elapsed);
    this.draw(gpu, gpu.context.getCurrentTexture(), player, stage);
    this.host.frameDrawn();
    this.frameDrawn(true);
    if (cameraMoved) this.host.cameraChanged();
    // Easing or auto-rotating keeps frames coming, as playing does.
    if ((player.playing || this.view.active || vrmActive) && this.visible) {
      this.lastFrameTime = time;
      // The hook may have asked for a frame already (requestRender, crossfadeTo): one loop only.
      if (this.rafId === 0) this.rafId = requestAnimationFrame(this.frame);
    } else {
      this.lastFrameTime = -1;
    }
    if (ended) this.host.animationEnded(player);
  }
}
