/**
 * Debug views the renderer can draw over (or instead of) the shaded model, as a bit
 * mask in `RenderSettings.debug`. Names match the `debug` attribute of
 * <skinned-mesh-viewer> (space-separated).
 */
export const DebugView = {
  /** Bones as lines from each joint to its parent joint, joints as points. */
  SKELETON: 1,
  /** Skinned normals as short lines from each vertex. */
  NORMALS: 2,
  /** Skinned tangents as short lines (colour by handedness w). */
  TANGENTS: 4,
  /** Surface coloured by skin weights instead of lighting. */
  WEIGHTS: 8,
  /** Triangle edges over the shaded surface. */
  WIREFRAME: 16,
  /** Each drawn instance's world-space culling box (skinned bounds) as lines. */
  BOUNDS: 32,
} as const;

/** The views a model's DebugViewDraws draws (view-draws.ts); BOUNDS is the Renderer's BoundsOverlay. */
export const ALL_DEBUG_VIEWS = DebugView.SKELETON | DebugView.NORMALS | DebugView.TANGENTS | DebugView.WEIGHTS | DebugView.WIREFRAME;

/** The debug views by name, as the element's `debug` attribute lists them. */
export const DEBUG_VIEW_NAMES = ['skeleton', 'normals', 'tangents', 'weights', 'wireframe', 'bounds'] as const;
/** One debug view's name (`skeleton`, `normals`, `tangents`, `weights`, `wireframe`, `bounds`). */
export type DebugViewName = (typeof DEBUG_VIEW_NAMES)[number];

const BIT_OF: Readonly<Record<DebugViewName, number>> = {
  skeleton: DebugView.SKELETON,
  normals: DebugView.NORMALS,
  tangents: DebugView.TANGENTS,
  weights: DebugView.WEIGHTS,
  wireframe: DebugView.WIREFRAME,
  bounds: DebugView.BOUNDS,
};

/** Parses a space-separated list of view names; unknown names are returned separately, not thrown. */
export function parseDebugViews(text: string | null | undefined): { mask: number; unknown: string[] } {
  let mask = 0;
  const unknown: string[] = [];
  for (const word of (text ?? '').split(/\s+/)) {
    if (!word) continue;
    const bit = BIT_OF[word.toLowerCase() as DebugViewName];
    if (bit === undefined) unknown.push(word);
    else mask |= bit;
  }
  return { mask, unknown };
}

/** The names of the views a `DebugView` bit mask turns on, in `DEBUG_VIEW_NAMES` order. */
export function debugViewNames(mask: number): DebugViewName[] {
  return DEBUG_VIEW_NAMES.filter((name) => (mask & BIT_OF[name]) !== 0);
}
