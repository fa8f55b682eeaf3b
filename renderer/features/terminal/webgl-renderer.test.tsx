import { Terminal } from '@xterm/xterm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { drawWithWebglWhereAvailable, gpuWebgl, type Renderer, type WebglLike } from './webgl-renderer';

/** A stand-in for the WebGL addon (happy-dom has no WebGL): the test loses its context when it likes. */
function fakeWebgl({ failToLoad = false } = {}) {
  let lose: (() => void) | undefined;
  let disposed = 0;
  const addon = {
    activate: vi.fn(() => {
      if (failToLoad) throw new Error('WebGL2 not supported');
    }),
    // xterm.js wraps an addon's dispose when it loads it: count the calls in here, not on the property.
    dispose: () => {
      disposed += 1;
    },
    timesDisposed: () => disposed,
    onContextLoss(listener: () => void) {
      lose = listener;
      return { dispose: () => (lose = undefined) };
    },
    loseContext: () => lose?.(),
  };
  return addon satisfies WebglLike;
}

function openTerminal() {
  const element = document.createElement('div');
  document.body.append(element);
  const terminal = new Terminal();
  terminal.open(element);
  return terminal;
}

/** A WebGL2 context whose driver calls itself `renderer`. */
function webglOn(renderer: string) {
  const gl = {
    RENDERER: 0x1f01,
    getExtension: (name: string) => (name === 'WEBGL_debug_renderer_info' ? { UNMASKED_RENDERER_WEBGL: 0x9246 } : null),
    getParameter: (parameter: number) => (parameter === 0x9246 ? renderer : 'WebKit WebGL'),
  };
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(gl as unknown as WebGL2RenderingContext);
}

describe('the terminal’s renderer', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is the DOM renderer where there is no WebGL', () => {
    const terminal = openTerminal();
    const renderers: Renderer[] = [];
    const dispose = drawWithWebglWhereAvailable(terminal, (renderer) => renderers.push(renderer));
    expect(renderers).toEqual(['dom']);
    // The terminal still draws its rows in the DOM.
    expect(terminal.element?.querySelector('.xterm-rows')).not.toBeNull();
    dispose();
    terminal.dispose();
  });

  it('is WebGL where a GPU draws it, and the DOM renderer again once the context is lost', () => {
    const terminal = openTerminal();
    const webgl = fakeWebgl();
    const renderers: Renderer[] = [];
    const dispose = drawWithWebglWhereAvailable(terminal, (renderer) => renderers.push(renderer), { hasGpu: () => true, createAddon: () => webgl });
    expect(renderers).toEqual(['webgl']);
    expect(webgl.activate).toHaveBeenCalledWith(terminal);

    webgl.loseContext();
    expect(renderers).toEqual(['webgl', 'dom']);
    expect(webgl.timesDisposed()).toBe(1);
    // Closing the terminal later does not dispose the addon a second time.
    dispose();
    expect(webgl.timesDisposed()).toBe(1);
    terminal.dispose();
  });

  it('stays with the DOM renderer when the addon cannot start', () => {
    const terminal = openTerminal();
    const webgl = fakeWebgl({ failToLoad: true });
    const renderers: Renderer[] = [];
    drawWithWebglWhereAvailable(terminal, (renderer) => renderers.push(renderer), { hasGpu: () => true, createAddon: () => webgl });
    expect(renderers).toEqual(['dom']);
    expect(webgl.timesDisposed()).toBeGreaterThan(0);
    terminal.dispose();
  });

  it('counts WebGL drawn by the CPU (SwiftShader, llvmpipe) as no GPU', () => {
    webglOn('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)');
    expect(gpuWebgl()).toBe(false);
    webglOn('llvmpipe (LLVM 15.0.6, 256 bits)');
    expect(gpuWebgl()).toBe(false);
    webglOn('ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0, D3D11)');
    expect(gpuWebgl()).toBe(true);
  });
});
