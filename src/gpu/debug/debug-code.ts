/**
 * The debug views' code: each model's view draws (view-draws.ts), the bounds overlay
 * (bounds-overlay.ts) and their pipelines (pipelines/debug.ts). A page that never sets `debug`
 * needs none of it, so the Renderer and ModelDraws import it when a frame or a prepare first asks
 * for a view, once per page; frames draw without the view until it is there, as they do while
 * its pipelines build (the view appears a few frames after it is asked for).
 */
import { BackgroundBuild } from '../device/background-build.ts';

export const debugViewCode = new BackgroundBuild('the debug views\' code', async () => {
  const [views, bounds, pipelines] = await Promise.all([import('./view-draws.ts'), import('./bounds-overlay.ts'), import('../pipelines/debug.ts')]);
  return { DebugViewDraws: views.DebugViewDraws, BoundsOverlay: bounds.BoundsOverlay, debugPipelines: pipelines.debugPipelines };
});
