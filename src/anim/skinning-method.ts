/**
 * How a skinned vertex blends its joints: linear blend skinning (a matrix palette) or
 * dual-quaternion skinning (a dual-quaternion palette, `dq-palette.ts`). Defined once here,
 * beside the palettes, so the CPU skinning (`skin/`), the renderer, the bake and the
 * element all name the same two methods.
 */
export type SkinningMethod = 'linear' | 'dual-quaternion';
export const SKINNING_METHODS: readonly SkinningMethod[] = ['linear', 'dual-quaternion'];
export const DEFAULT_SKINNING: SkinningMethod = 'linear';

/** `value` as a SkinningMethod, or undefined when it names none. */
export function asSkinningMethod(value: string): SkinningMethod | undefined {
  return (SKINNING_METHODS as readonly string[]).includes(value) ? (value as SkinningMethod) : undefined;
}

/** `value` as a SkinningMethod (undefined: linear), or an error naming the choices. */
export function parseSkinningMethod(value: string | undefined): SkinningMethod {
  if (value === undefined) return DEFAULT_SKINNING;
  const method = asSkinningMethod(value);
  if (method) return method;
  throw new Error(`skinning "${value}" must be ${SKINNING_METHODS.join(' or ')}`);
}
