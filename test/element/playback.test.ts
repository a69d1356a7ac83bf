import { describe, expect, it, vi } from 'vitest';
import { clipNames, ViewerPlayback, type PlaybackElement } from '../../src/element/playback.ts';
import { loadCharacter } from '../anim/fixtures.ts';

/** An element's attribute side, as the real one reacts: an animation attribute change reaches playback. */
class FakeElement implements PlaybackElement {
  autoplay = false;
  loop = false;
  speed = 1;
  crossfadeDuration = 0.25;
  playback: ViewerPlayback | undefined;
  readonly attributes = new Map<string, string>();
  readonly written: string[] = [];
  getAttribute(name: string): string | null { return this.attributes.get(name) ?? null; }
  hasAttribute(name: string): boolean { return this.attributes.has(name); }
  setAttribute(name: string, value: string): void {
    this.written.push(`${name}=${value}`);
    this.attributes.set(name, value);
    if (name === 'animation' || name === 'animation-name') this.playback?.attributeChanged('clip');
  }
}

const DT = 1 / 60;

async function setup() {
  const model = await loadCharacter();
  const element = new FakeElement();
  const events: string[] = [];
  let invalidations = 0;
  const playback = new ViewerPlayback(element, {
    emit: (type) => events.push(type),
    layerChanged: (type, name) => events.push(`${type} ${name}`),
    looped: (count) => events.push(`loop ${count}`),
    stage: () => undefined,
    invalidate: () => invalidations++,
  });
  element.playback = playback;
  return { model, element, events, playback, invalidations: () => invalidations };
}

describe('ViewerPlayback (the element\'s player, play/pause and clip attributes)', () => {
  it('names clips in file order, by index when unnamed; none without a model', async () => {
    const { model } = await setup();
    expect(clipNames(undefined)).toEqual([]);
    expect(clipNames(model)).toEqual(model.animations.map((c, i) => c.name ?? String(i)));
    expect(clipNames(model).length).toBeGreaterThan(1);
  });

  it('play() before a model loads is remembered and starts it once shown, firing play once; pause fires pause', async () => {
    const { model, events, playback } = await setup();
    expect(playback.paused).toBe(true);
    playback.play({ repetitions: 2 });
    expect(playback.paused).toBe(false);
    expect(events).toEqual([]);
    const player = playback.modelLoaded(model);
    expect(player.playing).toBe(false);
    playback.start();
    expect(player.playing).toBe(true);
    playback.play();
    expect(events).toEqual(['play']);
    playback.pause();
    playback.pause();
    expect(events).toEqual(['play', 'pause']);
    expect(playback.paused).toBe(true);
  });

  it('autoplay plays a loaded model; without it and without play() the model stays paused', async () => {
    const a = await setup();
    a.playback.modelLoaded(a.model);
    a.playback.start();
    expect(a.playback.paused).toBe(true);
    a.element.autoplay = true;
    a.playback.attributeChanged('autoplay');
    expect(a.playback.player!.playing).toBe(true);
    const b = await setup();
    b.element.autoplay = true;
    b.playback.modelLoaded(b.model);
    b.playback.start();
    expect(b.events).toEqual(['play']);
  });

  it('play() without options repeats for ever, loop or not; setting autoplay makes a clip played once repeat for ever; a new clip or model keeps the last play()\'s passes (model-viewer 4.4)', async () => {
    const { model, element, playback, events } = await setup();
    const names = clipNames(model);
    element.attributes.set('animation-name', names[1]);
    const player = playback.modelLoaded(model);
    const frames = (target: typeof player, passes: number) => {
      for (let i = 0; i < Math.ceil((passes * target.duration) / DT) && target.playing; i++) playback.api.advance(target, DT);
    };
    playback.play();
    frames(player, 2.5);
    expect(player.playing).toBe(true);
    expect(events).toEqual(['play', 'loop 1', 'loop 2']);
    playback.pause();
    playback.play({ repetitions: 1 });
    element.autoplay = true;
    playback.attributeChanged('autoplay');
    frames(player, 1.5);
    expect(player.playing).toBe(true);
    // Played once, then another clip named: it plays once too (4.4 keeps the last play()'s options).
    element.autoplay = false;
    playback.play({ repetitions: 1 });
    element.setAttribute('animation-name', names[0]);
    frames(player, 1.5);
    expect([player.clip, player.playing, player.ended]).toEqual([0, false, true]);
    // And a new model: appending a clip plays it, and its clip once.
    const next = playback.modelLoaded(model);
    playback.start();
    playback.appendAnimation(names[2], {});
    frames(next, 1.5);
    expect([next.playing, next.ended]).toEqual([false, true]);
  });

  it('starts on the clip `animation-name` names, else `animation`, else the first; an unknown name plays the first', async () => {
    const { model, element, playback } = await setup();
    const names = clipNames(model);
    element.attributes.set('animation', names[1]);
    expect(playback.modelLoaded(model).clip).toBe(1);
    element.attributes.set('animation-name', names[2 % names.length]);
    expect(playback.modelLoaded(model).clip).toBe(2 % names.length);
    element.attributes.set('animation-name', 'no such clip');
    expect(playback.modelLoaded(model).clip).toBe(0);
  });

  it('crossfadeTo blends while playing, writes the attribute in use, and that write starts no second transition', async () => {
    const { model, element, playback } = await setup();
    const names = clipNames(model);
    element.attributes.set('animation-name', names[0]);
    const player = playback.modelLoaded(model);
    playback.start();
    playback.play();
    playback.crossfadeTo(names[1], 0.5);
    expect(player.clip).toBe(1);
    expect(player.fading).toBe(true);
    expect(element.written).toEqual([`animation-name=${names[1]}`]);
    expect(element.attributes.has('animation')).toBe(false);
    // A page setting the attribute does switch (with the crossfade duration).
    element.setAttribute('animation-name', names[0]);
    expect(player.clip).toBe(0);
    expect(() => playback.crossfadeTo('no such clip', 0.1)).toThrow(/no animation "no such clip"; available: /);
  });

  it('animation-crossfade-duration (ms) wins over crossfade-duration (s); a negative one is ignored', async () => {
    const { element, playback } = await setup();
    expect(playback.crossfadeSeconds()).toBe(0.25);
    element.attributes.set('animation-crossfade-duration', '800');
    expect(playback.crossfadeSeconds()).toBe(0.8);
    element.attributes.set('animation-crossfade-duration', '-5');
    expect(playback.crossfadeSeconds()).toBe(0.25);
  });

  it('appendAnimation before a load or of an unknown clip appends nothing and warns (model-viewer 4.4 ignores both); detaching what is not appended only warns', async () => {
    const { model, playback, events } = await setup();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      playback.appendAnimation('Early', {});
      expect(warn.mock.calls.map(String)).toEqual([expect.stringMatching(/appendAnimation\("Early"\): no model is loaded yet; nothing is appended/)]);
      const player = playback.modelLoaded(model);
      expect(playback.api.names).toEqual([]);
      const names = clipNames(model);
      playback.appendAnimation('Nope', {});
      expect(String(warn.mock.calls[1])).toContain(`appendAnimation("Nope"): ${model.name} has no such animation (available: ${names.join(', ')}); nothing is appended`);
      // Nothing appended, so nothing plays and no event says otherwise.
      expect(player.playing).toBe(false);
      expect(playback.api.names).toEqual([]);
      playback.appendAnimation(names[1], { weight: 0.5 });
      expect(playback.api.names).toEqual([names[1]]);
      playback.detachAnimation('Nope', {});
      expect(warn).toHaveBeenCalledTimes(3);
      expect(playback.api.names).toEqual([names[1]]);
      expect(events).toEqual([`append-animation ${names[1]}`]);
    } finally {
      warn.mockRestore();
    }
  });

  it('appending or detaching a clip plays the paused model without a play event, and reports the layer (model-viewer 4.4)', async () => {
    const { model, playback, events } = await setup();
    const player = playback.modelLoaded(model);
    const names = clipNames(model);
    expect(player.playing).toBe(false);
    playback.appendAnimation(names[2], {});
    expect(player.playing).toBe(true);
    playback.pause();
    playback.detachAnimation(names[2], { fade: false });
    expect(player.playing).toBe(true);
    expect(events).toEqual([`append-animation ${names[2]}`, 'pause', `detach-animation ${names[2]}`]);
  });

  it('speed and loop attributes reach the player; a cleared model leaves nothing to play', async () => {
    const { model, element, playback } = await setup();
    const player = playback.modelLoaded(model);
    element.speed = -2;
    playback.attributeChanged('speed');
    expect(player.speed).toBe(-2);
    playback.modelCleared();
    expect(playback.player).toBeUndefined();
    expect(playback.paused).toBe(true);
    playback.attributeChanged('loop');
  });
});
