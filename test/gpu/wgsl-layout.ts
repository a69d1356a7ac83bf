/**
 * The WGSL memory layout rules (WGSL spec §14.4 "Memory Layout") for the types our
 * shaders use, and a tiny parser for `struct` declarations and attributes, so the
 * layout tests compute every offset from the shader text itself.
 */

interface TypeLayout { align: number; size: number }

const SCALAR: TypeLayout = { align: 4, size: 4 };
const TYPES: Readonly<Record<string, TypeLayout>> = {
  f32: SCALAR, u32: SCALAR, i32: SCALAR,
  vec2f: { align: 8, size: 8 }, vec2u: { align: 8, size: 8 }, vec2i: { align: 8, size: 8 },
  vec3f: { align: 16, size: 12 }, vec3u: { align: 16, size: 12 }, vec3i: { align: 16, size: 12 },
  vec4f: { align: 16, size: 16 }, vec4u: { align: 16, size: 16 }, vec4i: { align: 16, size: 16 },
  // matCxRf: C columns of vecR, each column aligned like vecR.
  mat2x2f: { align: 8, size: 16 }, mat3x2f: { align: 8, size: 24 }, mat3x3f: { align: 16, size: 48 }, mat4x4f: { align: 16, size: 64 },
};

export interface FieldLayout { name: string; type: string; offset: number; size: number }
export interface StructLayout { name: string; fields: FieldLayout[]; size: number; align: number }

const roundUp = (k: number, n: number) => Math.ceil(n / k) * k;

/** `array<T, N>`: T's alignment, a stride of T's size rounded up to it (WGSL §14.4.1). */
function arrayLayout(type: string): TypeLayout | undefined {
  const m = /^array<\s*(\w+)\s*,\s*(\d+)\s*>$/.exec(type);
  const element = m ? TYPES[m[1]] : undefined;
  return element && { align: element.align, size: roundUp(element.align, element.size) * Number(m![2]) };
}

/** The body of `struct name { ... }` in `source`. */
function structBody(source: string, name: string): string {
  const match = new RegExp(`struct\\s+${name}\\s*\\{([^}]*)\\}`).exec(source);
  if (!match) throw new Error(`struct ${name} not found`);
  return match[1];
}

export function structLayout(source: string, name: string): StructLayout {
  const body = structBody(source, name).replace(/\/\/.*$/gm, '');
  const fields: FieldLayout[] = [];
  let offset = 0, align = 1;
  for (const m of body.matchAll(/(?:@[^\s]+\s+)*(\w+)\s*:\s*(array<\s*\w+\s*,\s*\d+\s*>|\w+)\s*,?/g)) {
    const [, field, type] = m;
    const t = TYPES[type] ?? arrayLayout(type);
    if (!t) throw new Error(`struct ${name}.${field}: type ${type} has no layout here`);
    offset = roundUp(t.align, offset);
    fields.push({ name: field, type, offset, size: t.size });
    offset += t.size;
    align = Math.max(align, t.align);
  }
  return { name, fields, size: roundUp(align, offset), align };
}

/** `@location(N) name` pairs of a struct. */
export function structLocations(source: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of structBody(source, name).matchAll(/@location\((\d+)\)\s*(?:@\w+\([^)]*\)\s*)*(\w+)\s*:/g)) out.set(m[2], Number(m[1]));
  return out;
}

/** `@group(G) @binding(B) var... name` declarations. */
export function bindings(source: string): Map<string, { group: number; binding: number }> {
  const out = new Map<string, { group: number; binding: number }>();
  for (const m of source.matchAll(/@group\((\d+)\)\s*@binding\((\d+)\)\s*var(?:<[^>]*>)?\s+(\w+)/g)) {
    out.set(m[3], { group: Number(m[1]), binding: Number(m[2]) });
  }
  return out;
}

/** `const NAME: u32 = Nu;` declarations. */
export function u32Constants(source: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of source.matchAll(/const\s+(\w+)\s*:\s*u32\s*=\s*(\d+)u\s*;/g)) out.set(m[1], Number(m[2]));
  return out;
}

/** camelCase → SCREAMING_SNAKE_CASE (texcoord0 → TEXCOORD_0, baseColorTexture → BASE_COLOR_TEXTURE). */
export function screamingSnake(name: string): string {
  return name.replace(/([a-z])([A-Z0-9])/g, '$1_$2').toUpperCase();
}
