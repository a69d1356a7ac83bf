/**
 * Array types shared by the math modules. Kept apart from any one of them so that
 * quat.ts, trs.ts and dual-quat.ts can all name them without importing each other.
 */

/** What the math functions read and write: a typed array of joint data, or a plain array in setup code and tests. */
export type NumArray = Float32Array | Float64Array | number[];
