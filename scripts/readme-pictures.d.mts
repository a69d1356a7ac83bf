// Types of scripts/readme-pictures.mjs for the TypeScript that imports it (test/docs.test.ts).

/** Each README picture: the screenshot the demo test writes (in test-artifacts/), and the file the README shows. */
export const README_PICTURES: { artifact: string; file: string }[];

/** The most a README picture may weigh, bytes. */
export const PICTURE_MAX_BYTES: number;
