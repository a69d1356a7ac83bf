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

/**
 * `perDevice` for something built asynchronously (compute pipelines, shader modules): callers
 * while it builds share the one build, and a build that succeeded is kept; one that failed is
 * forgotten, so the next call builds again (its caller sees the failure).
 */
export function perDeviceBuild<T>(build: (device: GPUDevice) => Promise<T>): (device: GPUDevice) => Promise<T> {
  const made = new WeakMap<GPUDevice, Promise<T>>();
  return (device) => {
    let building = made.get(device);
    if (building === undefined) {
      const started = build(device);
      made.set(device, started);
      started.catch(() => { if (made.get(device) === started) made.delete(device); });
      building = started;
    }
    return building;
  };
}
