/**
 * Something built in the background on first use — pipelines, mostly — that frames draw
 * without until it is there. A frame asks with `request(onFailed)`, which starts the build the
 * first time (allocating only then) and returns the result once it has arrived; `prepare()`
 * starts it too and resolves with it. Concurrent asks share one build.
 *
 * A failed build is reported once, to the handler of the `request` that started it, by `what`
 * it was building (so one handler serves every build of a Renderer), and then forgotten by
 * default, so a later ask builds again; with `{ retry: false }` it is kept: frames asking again
 * neither rebuild nor report it every frame (DrawPipelineTable).
 *
 * `backgroundBuildsSettled` awaits every build under way on the page (in Node, the process): how
 * a page or a test knows that what its frames asked for has all arrived (or failed).
 */

/** Hears that a background build failed: what it was building ("the skybox") and why. */
export type BuildFailure = (what: string, error: unknown) => void;

/** The builds under way, and how many were ever started. */
const pendingBuilds = new Set<Promise<unknown>>();
let buildsStarted = 0;

/**
 * Resolves once no background build is under way: every one started before the call, and every
 * one started while waiting, has arrived or failed (a failure is reported as always, to the
 * handler of the request that started it; it does not reject this).
 */
export async function backgroundBuildsSettled(): Promise<void> {
  while (pendingBuilds.size > 0) await Promise.allSettled(pendingBuilds);
}

/** How many background builds were ever started: a frame that started none leaves it unchanged. */
export function backgroundBuildsStarted(): number {
  return buildsStarted;
}

export class BackgroundBuild<T> {
  private built: T | undefined;
  private building: Promise<T> | undefined;
  private readonly retry: boolean;

  constructor(
    /** What is built, as a failure names it ("the GPU culling pipelines"). */
    readonly what: string,
    private readonly build: () => Promise<T>,
    options: { readonly retry?: boolean } = {},
  ) {
    this.retry = options.retry ?? true;
  }

  /** The result, once built. */
  get value(): T | undefined {
    return this.built;
  }

  get ready(): boolean {
    return this.built !== undefined;
  }

  /** Starts the build unless one is under way, built or (without retries) kept, and resolves with its result. */
  prepare(): Promise<T> {
    if (!this.building) {
      const building = this.build();
      this.building = building;
      buildsStarted++;
      pendingBuilds.add(building);
      // Before anything awaiting the build (or backgroundBuildsSettled) resumes: the value is in place, the build no longer pending.
      building.then(
        (value) => {
          this.built = value;
          pendingBuilds.delete(building);
        },
        () => {
          if (this.retry && this.building === building) this.building = undefined;
          pendingBuilds.delete(building);
        },
      );
    }
    return this.building;
  }

  /**
   * From the frame path: the result once built; otherwise starts the build (the first time, or
   * again after a failure when retrying) without waiting for it, and returns undefined. A failure
   * of the build started here goes to `onFailed`. Allocates only when it starts a build.
   */
  request(onFailed: BuildFailure): T | undefined {
    if (this.built === undefined && !this.building) this.prepare().catch((e: unknown) => onFailed(this.what, e));
    return this.built;
  }
}
