import { WebglAddon } from '@xterm/addon-webgl';
import type { IDisposable, ITerminalAddon, Terminal } from '@xterm/xterm';

/** Which of xterm.js's renderers draws the screen (on the screen element as data-renderer). */
export type Renderer = 'webgl' | 'dom';

/** What of the WebGL addon is used here (tests give a stand-in: happy-dom has no WebGL). */
export interface WebglLike extends ITerminalAddon {
  onContextLoss(listener: () => void): IDisposable;
}

/** WebGL drawn by the CPU (SwiftShader, llvmpipe, ...): no GPU behind it. */
const softwareRenderer = /swiftshader|llvmpipe|softpipe|software|basic render driver/i;

/**
 * Whether WebGL2 here runs on a GPU. Chromium without one (or with --disable-gpu) still offers
 * WebGL through SwiftShader, on the CPU the page itself needs: a 32 MiB/s flood then lags about three
 * times as much as with the DOM renderer (bench/renderer-lag.bench.ts on a two-core machine).
 */
export function gpuWebgl(): boolean {
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return false;
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '');
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return !softwareRenderer.test(renderer);
  } catch {
    return false;
  }
}

/**
 * Draws with WebGL where a GPU allows (far less main-thread time per frame than the DOM renderer
 * during a flood); without one, or when the context is lost (a GPU reset, too many contexts), the
 * addon goes and xterm.js's DOM renderer draws again.
 */
export function drawWithWebglWhereAvailable(
  terminal: Terminal,
  onRenderer: (renderer: Renderer) => void,
  { hasGpu = gpuWebgl, createAddon = () => new WebglAddon() }: { hasGpu?: () => boolean; createAddon?: () => WebglLike } = {},
): () => void {
  if (!hasGpu()) {
    onRenderer('dom');
    return () => {};
  }
  let webgl: WebglLike | undefined;
  try {
    webgl = createAddon();
    const loaded = webgl;
    loaded.onContextLoss(() => {
      loaded.dispose();
      if (webgl === loaded) webgl = undefined;
      onRenderer('dom');
    });
    terminal.loadAddon(loaded);
    onRenderer('webgl');
  } catch {
    webgl?.dispose();
    webgl = undefined;
    onRenderer('dom');
  }
  return () => webgl?.dispose();
}
