import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  DEFAULT_CROSSFADE, DEFAULT_EXPOSURE, DEFAULT_SPEED, defineReflectedProperties, REFLECTED_ATTRIBUTES, reflectedAttribute,
  type AttributeHost, type ReflectedProperties,
} from '../../src/element/reflected-attributes.ts';
import { MAX_GPU_INSTANCES } from '../../src/element/stage.ts';
import { SkinnedMeshViewerElement } from '../../src/element/viewer.ts';

/** Attributes in a Map, with the DOM's methods; the table's accessors on its prototype. */
class StubElement implements AttributeHost {
  readonly attributes = new Map<string, string>();
  getAttribute(name: string): string | null { return this.attributes.get(name) ?? null; }
  setAttribute(name: string, value: string): void { this.attributes.set(name, String(value)); }
  removeAttribute(name: string): void { this.attributes.delete(name); }
  hasAttribute(name: string): boolean { return this.attributes.has(name); }
  toggleAttribute(name: string, force?: boolean): boolean {
    const on = force ?? !this.attributes.has(name);
    if (on) this.attributes.set(name, '');
    else this.attributes.delete(name);
    return on;
  }
}
defineReflectedProperties(StubElement.prototype);
const stub = () => new StubElement() as StubElement & ReflectedProperties;

describe('the reflected-attribute table', () => {
  it('is what the element observes and defines, one row per attribute and per property', () => {
    const attributes = REFLECTED_ATTRIBUTES.map((row) => row.attribute);
    const properties = REFLECTED_ATTRIBUTES.map((row) => row.property);
    // And model-viewer's `a11y`, whose property also takes an object, so the attribute is not its only source (a11y.ts).
    expect(SkinnedMeshViewerElement.observedAttributes).toEqual([...attributes, 'a11y']);
    expect(new Set(attributes).size).toBe(attributes.length);
    expect(new Set(properties).size).toBe(properties.length);
    for (const row of REFLECTED_ATTRIBUTES) {
      expect(reflectedAttribute(row.attribute)).toBe(row);
      const accessor = Object.getOwnPropertyDescriptor(SkinnedMeshViewerElement.prototype, row.property);
      expect(accessor, row.property).toMatchObject({ configurable: true, enumerable: false });
      expect(typeof accessor!.get).toBe('function');
      expect(typeof accessor!.set).toBe('function');
    }
    expect(reflectedAttribute('id')).toBeUndefined();
    // TypeScript users see exactly the table's properties.
    expectTypeOf<(typeof REFLECTED_ATTRIBUTES)[number]['property']>().toEqualTypeOf<keyof ReflectedProperties>();
    expectTypeOf<SkinnedMeshViewerElement['speed']>().toEqualTypeOf<number>();
    expectTypeOf<SkinnedMeshViewerElement['src']>().toEqualTypeOf<string | null>();
  });

  it('reads defaults while the attributes are absent', () => {
    const el = stub();
    expect([el.src, el.builtin, el.animation, el.cameraOrbit, el.background, el.debug, el.alt]).toEqual(new Array(7).fill(null));
    expect([el.autoplay, el.loop, el.cameraControls, el.rootMotion, el.shadows]).toEqual(new Array(5).fill(false));
    expect([el.speed, el.exposure, el.crossfadeDuration, el.instances]).toEqual([DEFAULT_SPEED, DEFAULT_EXPOSURE, DEFAULT_CROSSFADE, 1]);
    expect(el.skinning).toBe('linear');
  });

  it('writes strings, removing on null; booleans by presence; numbers as text', () => {
    const el = stub();
    el.src = 'a.glb';
    el.animation = 2;
    el.skinning = 'dual-quaternion';
    el.cameraControls = true;
    el.speed = -0.5;
    el.crossfadeDuration = 0;
    expect(Object.fromEntries(el.attributes)).toEqual({
      src: 'a.glb', animation: '2', skinning: 'dual-quaternion', 'camera-controls': '', speed: '-0.5', 'crossfade-duration': '0',
    });
    expect([el.animation, el.cameraControls, el.speed, el.crossfadeDuration]).toEqual(['2', true, -0.5, 0]);
    el.src = null;
    el.skinning = null;
    el.cameraControls = false;
    expect([...el.attributes.keys()]).toEqual(['animation', 'speed', 'crossfade-duration']);
    expect(el.skinning).toBe('linear');
  });

  it('reads malformed numbers as the default, seconds with units, and clamps instances', () => {
    const el = stub();
    el.setAttribute('speed', 'fast');
    el.setAttribute('exposure', '');
    el.setAttribute('crossfade-duration', '250ms');
    expect([el.speed, el.exposure, el.crossfadeDuration]).toEqual([DEFAULT_SPEED, DEFAULT_EXPOSURE, 0.25]);
    el.setAttribute('crossfade-duration', '-1s');
    expect(el.crossfadeDuration).toBe(DEFAULT_CROSSFADE);
    // The attribute allows a GPU-evaluated crowd's 100,000; a CPU crowd draws at most 4096 (stage.test.ts).
    for (const [text, n] of [['12.9', 12], ['0', 1], ['-3', 1], ['1e9', MAX_GPU_INSTANCES], ['50000', 50000], ['many', 1]] as const) {
      el.setAttribute('instances', text);
      expect(el.instances, text).toBe(n);
    }
    expect(el.crowdEvaluator).toBe('auto');
    el.setAttribute('crowd-evaluator', 'gpu');
    expect(el.crowdEvaluator).toBe('gpu');
  });
});
