import { AnimationPlayer } from '../anim/player.ts';
import type { Model } from '../gltf/model.ts';
import { AnimationApi, type AppendAnimationOptions, type DetachAnimationOptions, type PlayOptions } from './animation-api.ts';
import { parseNumber } from './attributes.ts';
import { prefersReducedMotion, TAG_NAME, warnOnce } from './page.ts';
import type { ReflectedProperties } from './reflected-attributes.ts';
import type { ViewerStage } from './stage.ts';

/** The element as playback reads it: its animation attributes and their properties. */
export type PlaybackElement = Pick<Element, 'getAttribute' | 'hasAttribute' | 'setAttribute'>
  & Pick<ReflectedProperties, 'autoplay' | 'loop' | 'speed' | 'crossfadeDuration'>;

/** What playback tells the element. */
export interface PlaybackEvents {
  /** `play`, `pause` and `loop` (with the passes complete) to dispatch. */
  emit(type: 'play' | 'pause', detail: Record<string, never>): void;
  /** `append-animation` / `detach-animation` to dispatch. */
  layerChanged(type: 'append-animation' | 'detach-animation', name: string): void;
  looped(count: number): void;
  /** The shown model's stage (its fade length follows clip changes). */
  stage(): ViewerStage | undefined;
  invalidate(): void;
}

/** Clip names in file order; an unnamed clip is listed by its index. */
export function clipNames(model: Model | undefined): string[] {
  return model ? model.animations.map((clip, i) => clip.name ?? String(i)) : [];
}

/**
 * <skinned-mesh-viewer>'s playback: the AnimationPlayer of the shown model, play()/pause()
 * (remembered while no model is loaded), `autoplay`, `loop`, `speed`, the clip the
 * `animation` / `animation-name` attribute names and crossfades to it, and appended clips
 * (AnimationApi). One per element; a new player per loaded model.
 */
export class ViewerPlayback {
  /** The shown model's player (undefined while none is loaded). */
  player: AnimationPlayer | undefined;
  /** Passes (`play({repetitions, pingpong})`) and appended clips. */
  readonly api: AnimationApi;
  private playRequested = false;
  /** play()'s options while no model is loaded yet. */
  private requestedOptions: PlayOptions | undefined;
  /** Set while crossfadeTo writes the `animation` attribute, which must not start a second transition. */
  private reflectingAnimation = false;

  constructor(private readonly element: PlaybackElement, private readonly events: PlaybackEvents) {
    this.api = new AnimationApi({ looped: (count) => events.looped(count) });
  }

  get names(): string[] { return clipNames(this.player?.model); }

  get paused(): boolean {
    return !(this.player ? this.player.playing : this.playRequested);
  }

  play(options?: PlayOptions): void {
    const player = this.player;
    if (!player) {
      this.playRequested = true;
      this.requestedOptions = options;
      return;
    }
    const was = player.playing;
    this.api.start(player, options, this.element.speed);
    player.play();
    this.events.invalidate();
    if (!was && player.playing) this.events.emit('play', {});
  }

  pause(): void {
    this.playRequested = false;
    const player = this.player;
    if (!player?.playing) return;
    player.pause();
    this.events.emit('pause', {});
  }

  /**
   * Layers the clip `name` over the playing one. Before a model loads, or for a name the model
   * does not have, nothing is appended (model-viewer 4.4 ignores both) and a warning says why.
   */
  appendAnimation(name: string, options: AppendAnimationOptions): void {
    const player = this.player;
    if (!player) {
      warnOnce(`appendAnimation("${name}"): no model is loaded yet; nothing is appended (call it after the load event)`);
      return;
    }
    const clip = player.findClip(name);
    if (clip < 0) {
      warnOnce(`appendAnimation("${name}"): ${player.model.name} has no such animation (available: ${this.names.join(', ') || 'none'}); nothing is appended`);
      return;
    }
    this.api.append(player, clip, name, options, this.crossfadeSeconds());
    this.unpause(player);
    this.events.invalidate();
    this.events.layerChanged('append-animation', name);
  }

  detachAnimation(name: string, options: DetachAnimationOptions): void {
    const player = this.player;
    if (!player || !this.api.detach(player, name, options, this.crossfadeSeconds())) {
      warnOnce(`detachAnimation("${name}"): it is not appended (appended: ${this.api.names.join(', ') || 'none'})`);
      return;
    }
    this.unpause(player);
    this.events.invalidate();
    this.events.layerChanged('detach-animation', name);
  }

  /**
   * Appending or detaching a clip plays the model, as model-viewer 4.4's do (its mixers are
   * unpaused): the layer's fades and the clip under it move. Without a `play` event, as there.
   */
  private unpause(player: AnimationPlayer): void {
    if (!player.playing) player.play();
  }

  crossfadeTo(nameOrIndex: string | number, seconds: number): void {
    const player = this.player;
    if (!player) throw new Error(`<${TAG_NAME}>.crossfadeTo: no model is loaded yet`);
    const clip = player.findClip(nameOrIndex);
    if (clip < 0) throw new RangeError(`<${TAG_NAME}>.crossfadeTo: no animation ${JSON.stringify(nameOrIndex)}; available: ${this.names.join(', ') || 'none'}`);
    this.switchClip(player, clip, seconds);
    this.reflectingAnimation = true;
    try {
      this.element.setAttribute(this.element.hasAttribute('animation-name') ? 'animation-name' : 'animation', this.names[clip]);
    } finally {
      this.reflectingAnimation = false;
    }
  }

  /** `animation-crossfade-duration` (ms) when set, else `crossfade-duration` (s). */
  crossfadeSeconds(): number {
    const ms = parseNumber(this.element.getAttribute('animation-crossfade-duration'));
    return ms !== undefined && ms >= 0 ? ms / 1000 : this.element.crossfadeDuration;
  }

  /** A new model: a player for it on the clip the attributes name (the stage comes after, from it). */
  modelLoaded(model: Model): AnimationPlayer {
    const player = new AnimationPlayer(model);
    this.api.clear();
    this.api.restart(player, this.element.speed);
    this.player = player;
    const clip = this.resolveClip(player);
    if (clip >= 0 && clip !== player.clip) player.setClip(clip);
    return player;
  }

  /** The model is framed and shown: play as asked before it loaded, or as `autoplay` says (play(): for ever). */
  start(): void {
    const requested = this.playRequested, options = this.requestedOptions;
    this.playRequested = false;
    this.requestedOptions = undefined;
    if (requested) this.play(options);
    else if (this.element.autoplay && !prefersReducedMotion()) this.play();
  }

  modelCleared(): void {
    this.player = undefined;
  }

  /** An animation attribute changed (its reaction in reflected-attributes.ts). */
  attributeChanged(reaction: 'clip' | 'autoplay' | 'loop' | 'speed'): void {
    const player = this.player;
    if (!player) return;
    switch (reaction) {
      case 'clip':
        if (!this.reflectingAnimation) {
          const clip = this.resolveClip(player);
          if (clip >= 0 && clip !== player.clip) this.switchClip(player, clip, this.crossfadeSeconds());
        }
        break;
      case 'autoplay':
        // As 4.4's: setting autoplay calls play(), so a playing clip now repeats for ever too.
        if (this.element.autoplay && !prefersReducedMotion()) this.play();
        break;
      case 'loop':
        this.api.setLoop(player, this.element.loop, this.element.speed);
        break;
      case 'speed':
        player.speed = this.api.effectiveSpeed(this.element.speed);
        break;
    }
  }

  /** The clip the `animation` attribute names (unset: the first); -1 when the model has none. */
  private resolveClip(player: AnimationPlayer): number {
    if (player.model.animations.length === 0) return -1;
    const wanted = this.element.getAttribute('animation-name') ?? this.element.getAttribute('animation');
    if (wanted === null || wanted.trim() === '') return 0;
    const clip = player.findClip(wanted.trim());
    if (clip < 0) warnOnce(`animation-name="${wanted}" is not in ${player.model.name} (${this.names.join(', ')}); playing the first clip`);
    return clip < 0 ? 0 : clip;
  }

  private switchClip(player: AnimationPlayer, clip: number, seconds: number): void {
    const stage = this.events.stage();
    if (stage) stage.fadeSeconds = seconds;
    // A crossfade advances with playback; a paused player would stay on the old pose.
    if (player.playing && seconds > 0) player.crossfadeTo(clip, seconds);
    else player.setClip(clip);
    this.api.restart(player, this.element.speed);
    this.events.invalidate();
  }
}
