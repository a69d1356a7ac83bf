// A clip from one skeleton played on another: retargeted once, then an ordinary clip of the target.
import { loadModelSource } from 'skinned-mesh-webgpu/element';
import { addClips, retargetClips } from 'skinned-mesh-webgpu/retarget';

const viewer = document.querySelector('skinned-mesh-viewer')!;
const baseUrl = document.baseURI;
// Two built-in models here; with files, `loadAnimationLibrary('walk.glb')` loads a clip file (no mesh needed) as the source.
const [source, target] = await Promise.all([
  loadModelSource('builtin:character', { baseUrl }),
  loadModelSource('builtin:vrm0-avatar', { baseUrl }),
]);
const { clips, unmapped, warnings } = retargetClips(source.animations, source, target);
for (const warning of warnings) console.warn(warning);
console.info(`retargeted ${clips.length} clips; target joints with no source: ${unmapped.length}`);
// A name the target has already is prefixed by the file's: the avatar's own Wave stays "Wave".
viewer.showModel(addClips(target, clips, 'character'));
