/**
 * One object per device, made on first use and dropped with the device: how pipeline
 * caches are shared by every Renderer on a device (several viewers on a page share one).
 */
export function perDevice<T>(create: (device: GPUDevice) => T): (device: GPUDevice) => T {
  const made = new WeakMap<GPUDevice, T>();
  return (device) => {
    let value = made.get(device);
    if (value === undefined) {
      value = create(device);
      made.set(device, value);
    }
    return value;
  };
}
