// The decoder half of `draco3dgltf`, imported by path so that a bundle does not also carry
// the encoder the package's main file requires. Its Emscripten factory takes the usual
// module options and resolves to the module; draco.ts types the part of it that it uses.
declare module 'draco3dgltf/draco_decoder_gltf_nodejs.js' {
  const createDecoderModule: (options?: Record<string, unknown>) => Promise<unknown>;
  export default createDecoderModule;
}
