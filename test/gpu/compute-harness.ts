/**
 * Runs a WGSL compute harness once per case and reads its results back: the test's shader
 * declares `jointPalette` (binding 0, a palette of 16-float entries), `cases` (binding 1) and
 * `results` (binding 2), and its `main` handles case `global_invocation_id.x`. Used to check
 * skinning.wgsl's functions against their CPU references (dqs-gpu.test.ts, cor-gpu.test.ts).
 */
export async function runComputeCases(
  device: GPUDevice, label: string, code: string, palette: Float32Array, cases: ArrayBuffer, count: number, resultBytes: number,
): Promise<Float32Array[]> {
  const module = device.createShaderModule({ label, code });
  const pipeline = await device.createComputePipelineAsync({ label, layout: 'auto', compute: { module, entryPoint: 'main' } });
  const buffer = (what: string, size: number, usage: number) => device.createBuffer({ label: `${label} ${what}`, size, usage });
  const paletteBuffer = buffer('palette', palette.byteLength, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
  device.queue.writeBuffer(paletteBuffer, 0, palette);
  const input = buffer('cases', cases.byteLength, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST);
  device.queue.writeBuffer(input, 0, cases);
  const output = buffer('results', count * resultBytes, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
  const readback = buffer('readback', output.size, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
  const bindGroup = device.createBindGroup({
    label: `${label} bind group`, layout: pipeline.getBindGroupLayout(0),
    entries: [paletteBuffer, input, output].map((b, binding) => ({ binding, resource: { buffer: b } })),
  });
  const encoder = device.createCommandEncoder({ label });
  const pass = encoder.beginComputePass({ label });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(count);
  pass.end();
  encoder.copyBufferToBuffer(output, 0, readback, 0, output.size);
  device.queue.submit([encoder.finish({ label })]);
  await readback.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(readback.getMappedRange().slice(0));
  for (const b of [paletteBuffer, input, output, readback]) b.destroy();
  return Array.from({ length: count }, (_, i) => out.subarray((i * resultBytes) / 4, ((i + 1) * resultBytes) / 4));
}
