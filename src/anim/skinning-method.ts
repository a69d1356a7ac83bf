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

/**
 * The method a setting asks for, as a frame uses it: anything but a known method is the
 * default (settings are read per frame and never thrown on). The renderer resolves it once
 * per frame (Renderer.renderInstances) and everything after reads the result.
 */
export function resolveSkinningMethod(setting: string): SkinningMethod {
  return asSkinningMethod(setting) ?? DEFAULT_SKINNING;
}

/**
 * The palette each method's shaders read: the joint matrices as the CPU and the GPU evaluator
 * make them, or DqJoint entries made from them each frame (dq-palette.ts). A new method adds its
 * row; the palette upload, the draw records' normals and how a GPU palette source is fed follow.
 */
const PALETTE_OF: Readonly<Record<SkinningMethod, 'matrices' | 'dual-quaternions'>> = {
  'linear': 'matrices',
  'dual-quaternion': 'dual-quaternions',
  'center-of-rotation': 'dual-quaternions',
};

/** Whether the method reads the DQ palette (DqJoint entries) instead of matrices (PALETTE_OF). */
export function usesDqPalette(method: SkinningMethod): boolean {
  return PALETTE_OF[method] === 'dual-quaternions';
}
