/**
 * An entry point for test/scripts/api-reference.test.ts that breaks each rule of the API
 * reference once: a {@link} to nothing, an export without a comment, and a public signature
 * naming a type the entry does not export. Never part of the package.
 */

/** Documented, but links to {@link NoSuchDeclaration}. */
export function fixtureBrokenLink(): void {}

export function fixtureUndocumented(): void {}

interface FixtureHiddenType {
  readonly x: number;
}

/** Documented, but its parameter's type is not exported. */
export function fixtureLeaksHiddenType(value: FixtureHiddenType): number {
  return value.x;
}
