import { smoothstep, type Influence, type Ring } from './geometry.ts';

/**
 * The trousers' seat and crotch: the bottom of the torso's lathe, whose cross-section turns from
 * the waist's ellipse into the two thighs' outline, so that the legs come out of it where they
 * already have its shape, and the crotch is a narrow bridge between them. The legs are open tubes
 * whose tops stay hidden inside it, well inside (figure.ts), so that the two surfaces never lie
 * close enough to show through each other but where the legs come out.
 *
 * Before, the torso ended in a dome below the hips and the legs in round caps above them: the dome
 * showed between the thighs as a dark, downward-facing V under the belt, and the caps poked out of
 * the hips and through the belt's lower edge (issue 27's review).
 *
 * The seat follows the thighs where it has their shape: its weights pass from Hips to each side's
 * UpperLeg as its rings go down, as the legs' own do, so a stride moves the two surfaces together
 * instead of opening a gap or pushing the leg through.
 */

/** One ring of the seat: the ellipse of the hips (or, lower, of the crotch between the thighs) that the thighs fill out. */
export interface SeatRing {
  /** Height, metres (the torso lathe's h). */
  h: number;
  /** The ellipse's half-width (across, model x) and half-depth (model z), metres, and how far its centre sits forward (negative: back). */
  rx: number;
  rz: number;
  dz: number;
  /** How far each thigh stands outside its profile (Thighs.rings) at this height, metres. */
  margin: number;
}

/** Where the thighs are: the leg joints' distance from the middle, the hip joints' height, and the thighs' profile (rings along the leg, downwards from `top`). */
export interface Thighs {
  x: number;
  top: number;
  rings: readonly Ring[];
}

/** How much closer together a ring's vertices come at the groove's middle at the crotch (there 1 − GATHER of the even spacing). */
const GATHER = 0.3;

/**
 * How wide, in metres of radius, the seat's smooth maximum rounds the fold where the ellipse and
 * a thigh meet: the surface is never more than a quarter of it outside both.
 */
const FOLD = 0.012;

/**
 * The seat's lathe rings, from the crotch up (the torso's own rings follow them): each ring's
 * section is the outline of its ellipse and the two thighs together (their smooth maximum seen
 * from the axis), the thighs being their profile's cross-sections at that height grown by the
 * ring's margin. Where the ellipse is narrower than the thighs, they show as the hips and the thighs'
 * tops; where it is shallower, the groove between them runs down to the crotch. `poleH` closes the seat just under its lowest ring, inside the legs.
 */
export function seatRings(rings: readonly SeatRing[], thighs: Thighs, poleH: number, poleDz: number): Ring[] {
  const out: Ring[] = [{ h: poleH, rx: 0, rz: 0, dz: poleDz }];
  const lowest = Math.min(...rings.map((r) => r.h));
  for (const r of rings) {
    const leg = legSection(thighs.rings, thighs.top - r.h);
    const [ox, oz] = [leg.rx + r.margin, leg.rz + r.margin];
    // The lower the ring, the more of its vertices gather at the front and back middle, where the
    // groove between the thighs turns fastest; the angle keeps 0, a quarter, a half and three quarters of the turn.
    const gather = GATHER * Math.min(Math.max((thighs.top - r.h) / (thighs.top - lowest), 0), 1);
    out.push({
      h: r.h,
      rx: Math.max(r.rx, thighs.x + ox),
      rz: Math.max(r.rz, oz),
      section: (angle) => {
        const a = angle + (gather / 2) * Math.sin(2 * angle);
        const [dx, dz] = [Math.cos(a), Math.sin(a)];
        const thigh = Math.max(rayToEllipse(dx, dz, thighs.x, leg.dz, ox, oz), rayToEllipse(dx, dz, -thighs.x, leg.dz, ox, oz));
        const radius = smoothMax(rayToEllipse(dx, dz, 0, r.dz, r.rx, r.rz), thigh, FOLD);
        return [radius * dx, radius * dz];
      },
    });
  }
  return out;
}

/** How far from the axis the ray in direction (dx, dz) last leaves the ellipse centred at (cx, cz) with semi-axes (ax, az); 0 if it misses. */
function rayToEllipse(dx: number, dz: number, cx: number, cz: number, ax: number, az: number): number {
  const a = (dx * dx) / (ax * ax) + (dz * dz) / (az * az);
  const b = (dx * cx) / (ax * ax) + (dz * cz) / (az * az);
  const c = (cx * cx) / (ax * ax) + (cz * cz) / (az * az) - 1;
  const disc = b * b - a * c;
  return disc < 0 ? 0 : Math.max(0, (b + Math.sqrt(disc)) / a);
}

/** The larger of a and b, rounded over where they are within k of each other (a quadratic smooth maximum: C1). */
function smoothMax(a: number, b: number, k: number): number {
  const h = Math.max(k - Math.abs(a - b), 0) / k;
  return Math.max(a, b) + (h * h * k) / 4;
}

/** The leg's ellipse at distance `h` down its bone, linearly between its rings (as the lathe's surface is). */
function legSection(rings: readonly Ring[], h: number): { rx: number; rz: number; dz: number } {
  const k = Math.max(1, rings.findIndex((r) => r.h >= h));
  const [a, b] = [rings[k - 1], rings[k]];
  const f = Math.min(Math.max((h - a.h) / (b.h - a.h), 0), 1);
  const mix = (p: number, q: number) => p + (q - p) * f;
  return { rx: mix(a.rx, b.rx), rz: mix(a.rz, b.rz), dz: mix(a.dz ?? 0, b.dz ?? 0) };
}

/**
 * How far either side of the middle plane (in the cosine of the angle round the seat) its weights
 * pass from one thigh to the other: the crotch's seam follows both legs equally, a ring's next
 * vertex its own side's.
 */
const SIDE_BLEND = 0.15;

/**
 * The seat's weights: the torso's (`torso`, by height) above `hipsAbove`, each side's UpperLeg
 * alone below `legsBelow` (where the legs' own weights are theirs alone), blended between.
 */
export function seatInfluences(
  torso: (h: number) => readonly Influence[],
  legs: { left: number; right: number },
  legsBelow: number,
  hipsAbove: number,
): (h: number, around: number) => Influence[] {
  return (h, around) => {
    const leg = 1 - smoothstep(legsBelow, hipsAbove, h);
    if (leg === 0) return [...torso(h)];
    const left = smoothstep(-SIDE_BLEND, SIDE_BLEND, Math.cos(2 * Math.PI * around));
    return [...torso(h).map(([j, w]) => [j, w * (1 - leg)] as const), [legs.left, leg * left], [legs.right, leg * (1 - left)]];
  };
}
