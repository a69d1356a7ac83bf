/**
 * Turns every WebGPU error a test causes into a failure of that test (issue #7: "the suite
 * fails on any"). Two nets, because each misses what the other catches:
 *
 * - error scopes (validation, out-of-memory, internal) pushed before each test and popped
 *   after it: `popErrorScope` resolves only once the GPU has processed everything inside
 *   the scope, so an error cannot arrive after the test was judged;
 * - `uncapturederror` and device loss, for errors outside any scope (a test that popped
 *   its own scopes, work started by one test and finished in a later hook).
 *
 * test/gpu/gpu-test.ts and test/support/webgpu.ts install one per device;
 * test/gpu/error-capture.test.ts proves both nets catch a deliberate mistake.
 */

export const ERROR_SCOPES: readonly GPUErrorFilter[] = ['validation', 'out-of-memory', 'internal'];

export class GpuErrorWatch {
  private readonly problems: string[] = [];
  private scoped: GPUDevice | undefined;

  /** Pass to createNodeDevice as `onUncapturedError`. */
  readonly onUncapturedError = (error: GPUError): void => {
    this.problems.push(`uncaptured WebGPU ${errorKind(error)} error: ${error.message}`);
  };

  /** Pass to createNodeDevice as `onLost` (called for any reason but destroy()). */
  readonly onLost = (info: GPUDeviceLostInfo): void => {
    this.problems.push(`device lost (${info.reason}): ${info.message}`);
  };

  /** Pushes the error scopes (before a test). */
  begin(device: GPUDevice): void {
    for (const filter of ERROR_SCOPES) device.pushErrorScope(filter);
    this.scoped = device;
  }

  /**
   * Pops the scopes pushed by `begin` and returns every problem since the last call, the
   * uncaptured ones included; empty when the test was clean.
   */
  async end(): Promise<string[]> {
    const device = this.scoped;
    this.scoped = undefined;
    if (device) {
      for (let i = ERROR_SCOPES.length - 1; i >= 0; i--) {
        try {
          const error = await device.popErrorScope();
          if (error) this.problems.push(`WebGPU ${ERROR_SCOPES[i]} error: ${error.message}`);
        } catch (e) {
          // The test popped more scopes than it pushed: its own bookkeeping is broken.
          this.problems.push(`popErrorScope failed (unbalanced error scopes in the test?): ${(e as Error).message}`);
          break;
        }
      }
    }
    return this.problems.splice(0);
  }

  /** Throws one error listing every problem since the last call (for an afterEach hook). */
  async check(): Promise<void> {
    const problems = await this.end();
    if (problems.length > 0) throw new Error(problems.join('\n'));
  }
}

function errorKind(error: GPUError): string {
  if (typeof GPUValidationError !== 'undefined' && error instanceof GPUValidationError) return 'validation';
  if (typeof GPUOutOfMemoryError !== 'undefined' && error instanceof GPUOutOfMemoryError) return 'out-of-memory';
  return error.constructor?.name && error.constructor.name !== 'Object' ? error.constructor.name : 'device';
}
