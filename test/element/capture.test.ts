import { describe, expect, it } from 'vitest';
import { unpremultiply } from '../../src/element/capture.ts';

describe('unpremultiply', () => {
  it('leaves opaque and fully transparent pixels untouched and divides the rest by alpha', () => {
    const pixels = Uint8Array.of(
      10, 20, 30, 255, // opaque: as is (a capture of an opaque frame is the frame)
      0, 0, 0, 0, // transparent: as is
      64, 32, 0, 128, // half: doubled
      200, 10, 0, 100, // over-bright (rounding in a premultiplied target): clamped
    );
    unpremultiply(pixels);
    expect([...pixels]).toEqual([10, 20, 30, 255, 0, 0, 0, 0, 128, 64, 0, 128, 255, 26, 0, 100]);
  });
});
