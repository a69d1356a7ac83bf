import { GltfError } from './errors.ts';

/** Every load may use this much, whatever its size. */
export const BUDGET_BASE_BYTES = 16 * 1024 * 1024;
/**
 * Plus this much per byte of input (the file and its external buffers). Real assets need a
 * few bytes per input byte (dequantised attributes are up to 4× their u8 source, skinning
 * data is widened once more); morph targets over view-less sparse bases need more.
 */
export const BUDGET_BYTES_PER_INPUT_BYTE = 64;

/** A budget's limit, the input it was sized by and what is used: plain data (Model.loadBudget, worker messages). */
export interface BudgetState {
  readonly limit: number;
  readonly inputBytes: number;
  readonly usedBytes: number;
}

/**
 * What one load may allocate (or loop over without allocating), relative to the bytes it
 * was given. Counts are checked against the data they describe before anything is
 * allocated, but a file can still ask for far more than its size honestly: accessors
 * without a bufferView (zeros of any count), thousands of accessors aliasing one
 * bufferView, one big accessor referenced by thousands of primitives or samplers. Each
 * such site charges the budget first, so a 100-byte file can never cost gigabytes and the
 * error names the JSON path where the budget ran out.
 */
export class LoadBudget {
  private used = 0;

  constructor(
    readonly limit: number,
    readonly inputBytes: number,
  ) {}

  /** A budget that goes on from `state` (a load's, for what is decoded later: KTX2 transcoding at upload). */
  static resume(state: BudgetState): LoadBudget {
    const budget = new LoadBudget(state.limit, state.inputBytes);
    budget.used = state.usedBytes;
    return budget;
  }

  /** Where the budget stands: to resume it later or in a worker. */
  state(): BudgetState {
    return { limit: this.limit, inputBytes: this.inputBytes, usedBytes: this.used };
  }

  /** The default limit for a load of `inputBytes` bytes of file and external buffers. */
  static forInput(inputBytes: number, limit?: number): LoadBudget {
    return new LoadBudget(limit ?? BUDGET_BASE_BYTES + BUDGET_BYTES_PER_INPUT_BYTE * inputBytes, inputBytes);
  }

  /** Bytes charged so far. */
  get usedBytes(): number {
    return this.used;
  }

  /** Charges `bytes` before they are allocated or walked; throws when that would pass the limit. */
  charge(bytes: number, path: string): void {
    if (!(bytes >= 0)) bytes = Infinity;
    if (this.used + bytes > this.limit) {
      throw new GltfError(
        path,
        `loading needs more than ${megabytes(this.limit)} of memory (${megabytes(this.used + bytes)} asked), ` +
          `the limit for ${megabytes(this.inputBytes)} of input; the counts here are out of proportion to the data in the file`,
      );
    }
    this.used += bytes;
  }
}

function megabytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'unbounded memory';
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
