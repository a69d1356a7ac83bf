/**
 * How a skinned vertex blends its joints: linear blend skinning (a matrix palette),
 * dual-quaternion skinning (a dual-quaternion palette, `dq-palette.ts`), or centre-of-rotation
 * skinning (Le & Hodgins 2016: the same DQ palette, plus a precomputed centre per vertex,
 * src/skin/centers-of-rotation/). Defined once here, beside the palettes, so the CPU skinning
 * (`skin/`), the renderer, the bake and the element all name the same three methods.
 */
export type SkinningMethod = 'linear' | 'dual-quaternion' | 'center-of-rotation';
export const SKINNING_METHODS: readonly SkinningMethod[] = ['linear', 'dual-quaternion', 'center-of-rotation'];
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
  throw new Error(`skinning "${value}" must be ${methodChoices()}`);
}

/** "linear, dual-quaternion or center-of-rotation": the choices, for messages. */
export function methodChoices(): string {
  return `${SKINNING_METHODS.slice(0, -1).join(', ')} or ${SKINNING_METHODS[SKINNING_METHODS.length - 1]}`;
}

/** Whether the method reads the DQ palette (DqJoint entries) instead of matrices. */
export function usesDqPalette(method: SkinningMethod): boolean {
  return method !== 'linear';
}
