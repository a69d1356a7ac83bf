/**
 * The JSX typings (src/element/jsx-attributes.ts) name every attribute the elements observe,
 * and type each as the element reads it: a new attribute without a typing, a dropped one, or a
 * boolean typed as text fails here. (That React takes them is test/browser/package-consumer.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExtraModelElement } from '../../src/element/extra-model.ts';
import { REFLECTED_ATTRIBUTES } from '../../src/element/reflected-attributes.ts';
import { SkinnedMeshViewerElement } from '../../src/element/viewer.ts';

const SOURCE = readFileSync(resolve(import.meta.dirname, '../../src/element/jsx-attributes.ts'), 'utf8');

/** An interface's members in jsx-attributes.ts: attribute name → its type as written. */
function members(name: string): Map<string, string> {
  const body = new RegExp(`export interface ${name} \\{([^}]*)\\}`).exec(SOURCE)?.[1];
  if (body === undefined) throw new Error(`jsx-attributes.ts has no interface ${name}`);
  return new Map([...body.matchAll(/^\s*'?([\w-]+)'?\?: ([^;]+);/gm)].map((m) => [m[1], m[2]]));
}

const TYPE_OF_KIND = { boolean: 'boolean', string: 'string', number: 'NumberAttribute', seconds: 'NumberAttribute', count: 'NumberAttribute' } as const;

describe('JSX attribute typings', () => {
  it('type every attribute <skinned-mesh-viewer> observes, as its kind reads it', () => {
    const typed = members('SkinnedMeshViewerAttributes');
    expect([...typed.keys()]).toEqual([...SkinnedMeshViewerElement.observedAttributes]);
    for (const row of REFLECTED_ATTRIBUTES) expect(typed.get(row.attribute), row.attribute).toBe(TYPE_OF_KIND[row.kind]);
    expect(typed.get('a11y')).toBe('string');
  });

  it('type every attribute <extra-model> observes', () => {
    expect([...members('ExtraModelAttributes').keys()]).toEqual([...ExtraModelElement.observedAttributes]);
  });
});
