import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useOperatorClient } from '../../app/operator-context';
import { isOperatorError } from '../../../shared/errors';
import { ErrorAlert } from '../../ui/error-alert';
import { chunkInput, formatBytes } from './output-markers';
import type { OutputSink } from './parse-queue';
import { RunOutputStream } from './run-output-stream';
import { darkTerminalTheme, lightTerminalTheme, searchDecorations } from './terminal-theme';
import { useDarkScheme } from './use-dark-scheme';
import { drawWithWebglWhereAvailable } from './webgl-renderer';

type OpenFrom = 'start' | 'tail' | number;
/** `until`: a page of older output, [from, until), not followed live. */
type OutputView =
  | { state: 'opening'; from: OpenFrom; until?: number }
  | { state: 'open'; from: OpenFrom; until?: number; fromOffset: number; totalBytes: number }
  | { state: 'error'; from: OpenFrom; until?: number; error: unknown };

/** Where a terminal opens instead of the live tail (a search result): a page from that byte, `find` highlighted. */
export interface OutputPosition {
  byteOffset: number;
  find: string;
}

interface TerminalParts {
  terminal: Terminal;
  fit: FitAddon;
  search: SearchAddon;
  stream: RunOutputStream;
}

const ignore = () => {};
/** The PTY follows the pane once the operator stops dragging, not on every frame of it. */
const resizeDebounceMs = 150;
/**
 * Lines the terminal keeps. xterm.js stores about 12 bytes per cell, so 20,000 lines of 120 columns
 * are some 30 MB per terminal at most, and a Compare page shows several; everything before them is
 * in the ledger and one "Show earlier output" away.
 */
const scrollbackLines = 20_000;
/**
 * How much further back "Show earlier output" starts each time: as much as a tail, so what follows
 * still fits in the scrollback for output of ordinary line lengths.
 */
const earlierOutputBytes = 256 * 1024;
/**
 * Past a page from where it starts to the live end, earlier output is shown a page at a time: the
 * scrollback would drop the beginning of a longer replay, the very part asked for. A page is as many
 * bytes as fill `pageRows` rows at the output's own bytes per row (measured on what is shown), at most
 * 512 KiB (some 5,000-10,000 rows of ordinary agent output), so short lines get smaller pages.
 */
const maxPageBytes = 512 * 1024;
const minPageBytes = 32 * 1024;
const pageRows = 12_000;

function searchResultText(results: { index: number; count: number } | null, term: string): string {
  if (!term || !results) return '';
  if (results.count === 0) return 'No matches';
  if (results.index < 0) return `${results.count}+ matches`;
  return `${results.index + 1} of ${results.count}`;
}

/**
 * A run's output in xterm.js (DESIGN.md section 5): the tail first, then live; "Load full output"
 * replays everything from the ledger. Output is acknowledged only after xterm has parsed it, so a
 * busy tab is skipped forward by the core instead of slowing the run. While the run takes input, what
 * is typed here goes to its PTY, and the PTY follows the size of this pane.
 */
/** How long input the core refused keeps the terminal read-only, when the run's detail does not (yet) say its host is unreachable. */
const refusalShownMs = 5000;

export function RunTerminal({
  runId,
  running,
  canSendInput,
  hostUnreachable = null,
  openAt,
}: {
  runId: string;
  running: boolean;
  canSendInput: boolean;
  /**
   * The SSH host the run executes on, while it cannot be reached: the terminal is read-only meanwhile
   * (nothing typed would reach the run) and says so, and takes input again once the host answers.
   */
  hostUnreachable?: string | null;
  /** Open a page of output from this position (with its match highlighted) rather than the live tail. */
  openAt?: OutputPosition | undefined;
}) {
  const client = useOperatorClient();
  const dark = useDarkScheme();
  const screenRef = useRef<HTMLDivElement>(null);
  const findRef = useRef<HTMLInputElement>(null);
  const partsRef = useRef<TerminalParts | null>(null);
  const liveRef = useRef({ running, canSendInput, dark });
  // Read once, when the terminal opens (the page keys the terminal by it).
  const openAtRef = useRef(openAt);
  const [view, setView] = useState<OutputView>({ state: 'opening', from: 'tail' });
  const [skippedBytes, setSkippedBytes] = useState(0);
  /** The operator has scrolled to the top of what the terminal holds (or it all fits on the screen). */
  const [atTop, setAtTop] = useState(true);
  /**
   * Whether Tab leaves the terminal (for the next control) instead of going to the run. Always so when
   * the run takes no input; Ctrl+M switches it while it does (VS Code's terminal does the same), so a
   * keyboard user is never stuck in the terminal and a CLI that wants Tab can still have it.
   */
  const [tabMovesFocus, setTabMovesFocus] = useState(false);
  const tabMovesFocusRef = useRef(tabMovesFocus);
  const [term, setTerm] = useState('');
  const [results, setResults] = useState<{ index: number; count: number } | null>(null);
  const findId = useId();
  const findStatusId = useId();

  /** Input the core refused (its host went unreachable since the page's last look): said, never dropped unsaid. */
  const [refusedInput, setRefusedInput] = useState<string | null>(null);
  const refusedRef = useRef(false);
  const pausedId = useId();

  // Typing goes to the run only while the terminal shows it live, not a page of its history, and
  // while its host (if it has one) can be reached.
  const paging = view.until !== undefined;
  const inputPaused = running && (hostUnreachable !== null || refusedInput !== null);
  const takesInput = canSendInput && !paging && !inputPaused;


  useEffect(() => {
    liveRef.current = { running, canSendInput: takesInput, dark };
    tabMovesFocusRef.current = tabMovesFocus;
  });

  const openOutput = useCallback((from: OpenFrom, until?: number, onShown?: (parts: TerminalParts) => void) => {
    const parts = partsRef.current;
    if (!parts) return;
    const page = until !== undefined ? { until } : {};
    setView({ state: 'opening', from, ...page });
    setSkippedBytes(0);
    // A cleared screen is at its top until output scrolls it.
    setAtTop(true);
    parts.stream.open(from, page).then(
      (opened) => {
        if (opened && partsRef.current === parts) {
          // A page's end as the core clamped it to the output there is.
          const shown = opened.untilOffset !== null ? { until: opened.untilOffset } : {};
          setView({ state: 'open', from, ...shown, fromOffset: opened.fromOffset, totalBytes: opened.totalBytes });
          // Earlier output was asked for: show its beginning once it is on the screen, not the end.
          if (typeof from === 'number') {
            parts.stream.whenParsed(opened.untilOffset ?? opened.totalBytes, () => {
              parts.terminal.scrollToTop();
              onShown?.(parts);
            });
          }
        }
      },
      (error: unknown) => {
        if (partsRef.current === parts) setView({ state: 'error', from, ...page, error });
      },
    );
  }, []);

  const sendSize = useCallback(() => {
    const parts = partsRef.current;
    if (!parts || !liveRef.current.running) return;
    const { cols, rows } = parts.terminal;
    if (cols < 2 || rows < 1) return;
    client.resizeRun({ runId, cols, rows }).catch(ignore);
  }, [client, runId]);

  useEffect(() => {
    const screen = screenRef.current;
    if (!screen) return;
    const terminal = new Terminal({
      // The search addon's match highlighting uses the decoration API.
      allowProposedApi: true,
      cursorBlink: false,
      disableStdin: !liveRef.current.canSendInput,
      fontFamily: "ui-monospace, 'SF Mono', SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace",
      fontSize: 12.5,
      lineHeight: 1.15,
      scrollback: scrollbackLines,
      theme: liveRef.current.dark ? darkTerminalTheme : lightTerminalTheme,
    });
    const fit = new FitAddon();
    const search = new SearchAddon({ highlightLimit: 2000 });
    terminal.loadAddon(fit);
    terminal.loadAddon(search);
    terminal.open(screen);
    const disposeWebgl = drawWithWebglWhereAvailable(terminal, (renderer) => {
      screen.dataset.renderer = renderer;
    });
    // For the renderer lag benchmark (bench/renderer-lag.bench.ts): the rows on screen as text, which
    // the WebGL renderer draws on a canvas rather than in the DOM.
    (screen as HTMLDivElement & { visibleText?: () => string }).visibleText = () => {
      const buffer = terminal.buffer.active;
      const rows: string[] = [];
      for (let y = buffer.viewportY; y < buffer.viewportY + terminal.rows; y += 1) rows.push(buffer.getLine(y)?.translateToString(true) ?? '');
      return rows.join('\n');
    };
    terminal.attachCustomKeyEventHandler((event) => {
      const plain = !event.ctrlKey && !event.altKey && !event.metaKey;
      if (event.key === 'Tab' && plain && (!liveRef.current.canSendInput || tabMovesFocusRef.current)) return false; // the browser moves focus
      if (event.type === 'keydown' && event.key.toLowerCase() === 'm' && event.ctrlKey && !event.altKey && !event.metaKey && !event.shiftKey) {
        event.preventDefault();
        setTabMovesFocus((current) => !current);
        return false;
      }
      return true;
    });

    const sink: OutputSink = {
      write: (bytes, parsed) => terminal.write(bytes, parsed),
      writeNote: (text) => terminal.write(text),
      // Whatever is still queued in xterm is parsed first, so nothing of the old stream lands after the reset.
      reset: () =>
        new Promise<void>((resolve) => {
          terminal.write('', () => {
            terminal.reset();
            resolve();
          });
        }),
    };
    const stream = new RunOutputStream(client, runId, sink, { onSkipped: setSkippedBytes });
    const parts: TerminalParts = { terminal, fit, search, stream };
    partsRef.current = parts;

    const fitToPane = () => {
      try {
        fit.fit();
      } catch {
        // A pane with no size (hidden, or not laid out yet) has nothing to fit; the next resize will.
      }
    };
    fitToPane();
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(fitToPane);
    });
    observer.observe(screen);

    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    const resizeSubscription = terminal.onResize(() => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(sendSize, resizeDebounceMs);
    });

    // Keystrokes go out in order, one request at a time.
    let inputQueue = Promise.resolve();
    const dataSubscription = terminal.onData((data) => {
      if (!liveRef.current.canSendInput) return;
      for (const chunk of chunkInput(data)) {
        inputQueue = inputQueue
          .then(() => client.sendRunInput({ runId, data: chunk }))
          .then(ignore, (error: unknown) => {
            // The run's host cannot be reached: the terminal goes read-only and says why (the core sent nothing).
            if (isOperatorError(error) && error.code === 'ssh_failed' && !refusedRef.current) {
              refusedRef.current = true;
              setRefusedInput(error.message);
              // Until the run's detail says the host is unreachable (then that keeps it read-only), or a
              // moment's reconnect is over: then typing goes to the run again.
              setTimeout(() => {
                refusedRef.current = false;
                setRefusedInput(null);
              }, refusalShownMs);
            }
          });
      }
    });
    const scrollSubscription = terminal.onScroll(() => setAtTop(terminal.buffer.active.viewportY === 0));
    const resultsSubscription = search.onDidChangeResults(({ resultIndex, resultCount }) =>
      setResults({ index: resultIndex, count: resultCount }),
    );

    const jump = openAtRef.current;
    if (jump) {
      // A search result: the page of output that starts at the result's row (as Show earlier output
      // opens one), and its first match found there, highlighted and scrolled to, in Find's field.
      openOutput(jump.byteOffset, jump.byteOffset + maxPageBytes, (shown) => {
        if (!jump.find) return;
        setTerm(jump.find);
        shown.search.findNext(jump.find, { decorations: searchDecorations(liveRef.current.dark) });
      });
    } else openOutput('tail');

    return () => {
      partsRef.current = null;
      cancelAnimationFrame(frame);
      clearTimeout(resizeTimer);
      observer.disconnect();
      resizeSubscription.dispose();
      dataSubscription.dispose();
      resultsSubscription.dispose();
      scrollSubscription.dispose();
      stream.dispose();
      disposeWebgl();
      terminal.dispose();
    };
  }, [client, runId, openOutput, sendSize]);

  // The core's output subscriptions belong to a connection: when it comes back, pick up where the screen left off.
  useEffect(() => {
    let previous = client.transportState();
    return client.onTransportState((state) => {
      const parts = partsRef.current;
      if (state === 'connected' && previous !== 'connected' && parts) {
        // The screen stays as it is; only a failure is worth showing.
        parts.stream.reconnect().then(
          (opened) => {
            if (!opened || partsRef.current !== parts) return;
            setView((current) =>
              current.state === 'open'
                ? current
                : { state: 'open', from: current.from, ...(current.until !== undefined ? { until: current.until } : {}), fromOffset: opened.fromOffset, totalBytes: opened.totalBytes },
            );
          },
          (error: unknown) => {
            if (partsRef.current === parts) setView((current) => ({ state: 'error', from: current.from, error }));
          },
        );
      }
      previous = state;
    });
  }, [client]);

  // A run that starts (or is resumed) while shown gets this pane's size.
  useEffect(() => {
    if (running) sendSize();
  }, [running, sendSize]);

  useEffect(() => {
    const parts = partsRef.current;
    if (parts) parts.terminal.options.disableStdin = !takesInput;
  }, [takesInput]);

  useEffect(() => {
    const parts = partsRef.current;
    if (parts) parts.terminal.options.theme = dark ? darkTerminalTheme : lightTerminalTheme;
  }, [dark]);

  // Ctrl/Cmd+F finds in the output rather than in the page; caught before xterm turns it into ^F.
  useEffect(() => {
    const onKeyDown = (event: globalThis.KeyboardEvent) => {
      if (event.key.toLowerCase() !== 'f' || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
      event.preventDefault();
      event.stopPropagation();
      findRef.current?.focus();
      findRef.current?.select();
    };
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, []);

  const find = (direction: 'next' | 'previous', incremental = false) => {
    const parts = partsRef.current;
    if (!parts) return;
    if (!term) {
      parts.search.clearDecorations();
      setResults(null);
      return;
    }
    const options = { decorations: searchDecorations(dark), incremental };
    if (direction === 'next') parts.search.findNext(term, options);
    else parts.search.findPrevious(term, options);
  };

  const onFindKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      find(event.shiftKey ? 'previous' : 'next');
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setTerm('');
      setResults(null);
      partsRef.current?.search.clearDecorations();
      partsRef.current?.terminal.focus();
    }
  };

  const loading = view.state === 'opening';
  // At the top of what the terminal holds, with more before it in the ledger: offer the next piece back.
  /** How many bytes of this output fill `rows` rows, measured on what the terminal holds (null: too little to say). */
  const bytesForRows = (rows: number): number | null => {
    const held = partsRef.current?.terminal.buffer.active.length ?? 0;
    if (view.state !== 'open' || held < 500) return null;
    const shown = (view.until ?? view.totalBytes) - view.fromOffset;
    return (shown / held) * rows;
  };
  /** A page of this output (see pageRows). */
  const pageBytes = (): number => Math.round(Math.min(maxPageBytes, Math.max(minPageBytes, bytesForRows(pageRows) ?? maxPageBytes)));
  /** What the scrollback surely holds: 90% of its rows' worth (line lengths vary along the output). */
  const fitsBytes = (): number => Math.max(pageBytes(), bytesForRows(scrollbackLines * 0.9) ?? 0);
  const canShowEarlier = view.state === 'open' && atTop && view.fromOffset > 0;
  const showEarlier = () => {
    if (view.state !== 'open') return;
    const page = pageBytes();
    // Live, while what it would replay fits the scrollback; else the page just before what is shown.
    const back = Math.max(0, view.fromOffset - Math.min(earlierOutputBytes, page));
    if (!paging && view.totalBytes - back <= fitsBytes()) openOutput(back);
    else openOutput(Math.max(0, view.fromOffset - page), view.fromOffset);
  };
  const canShowLater = view.state === 'open' && view.until !== undefined && view.until < view.totalBytes;
  const showLater = () => {
    if (view.state !== 'open' || view.until === undefined) return;
    const page = pageBytes();
    // The next page, or live from there once the rest is no longer than a page.
    if (view.totalBytes - view.until <= fitsBytes()) openOutput(view.until);
    else openOutput(view.until, view.until + page);
  };
  const footerNote =
    view.state === 'open'
      ? [
          view.until !== undefined
            ? `Showing ${formatBytes(view.fromOffset)} to ${formatBytes(view.until)} of ${formatBytes(view.totalBytes)} of output, not following live.`
            : view.fromOffset > 0
            ? `Showing the end of the output; the first ${formatBytes(view.fromOffset)} are not loaded.`
            : view.from !== 'tail'
              ? 'Showing the full output.'
              : '',
          skippedBytes > 0 ? `${formatBytes(skippedBytes)} skipped while catching up (kept in full in the ledger).` : '',
          takesInput
            ? `Typing in the terminal sends input to the run. ${tabMovesFocus ? 'Tab moves focus out of the terminal (Ctrl+M sends Tab to the run again).' : 'Ctrl+M makes Tab move focus out of the terminal.'}`
            : '',
        ]
          .filter(Boolean)
          .join(' ')
      : '';
  return (
    <section className="run-terminal" aria-label="Run output">
      <div className="run-terminal__toolbar">
        <div className="run-terminal__find" role="search">
          <label htmlFor={findId} className="visually-hidden">
            Find in output
          </label>
          <input
            ref={findRef}
            id={findId}
            className="input run-terminal__find-input"
            type="search"
            placeholder="Find in output"
            value={term}
            onChange={(event) => {
              const next = event.target.value;
              setTerm(next);
              const parts = partsRef.current;
              if (!parts) return;
              if (!next) {
                parts.search.clearDecorations();
                setResults(null);
              } else {
                parts.search.findNext(next, { decorations: searchDecorations(dark), incremental: true });
              }
            }}
            onKeyDown={onFindKeyDown}
            aria-describedby={findStatusId}
            autoComplete="off"
            spellCheck={false}
          />
          <button type="button" className="button button--small" onClick={() => find('previous')} disabled={!term}>
            Previous
          </button>
          <button type="button" className="button button--small" onClick={() => find('next')} disabled={!term}>
            Next
          </button>
          <span id={findStatusId} className="run-terminal__find-status muted" aria-live="polite">
            {searchResultText(results, term)}
          </span>
        </div>
        <button
          type="button"
          className="button button--small"
          aria-disabled={loading || undefined}
          onClick={() => {
            if (!loading) openOutput('start');
          }}
        >
          Load full output
        </button>
      </div>
      <div className="run-terminal__frame">
        {canShowEarlier ? (
          <button type="button" className="button button--small run-terminal__earlier" onClick={showEarlier}>
            Show earlier output
          </button>
        ) : null}
        <div
          ref={screenRef}
          className="run-terminal__screen"
          data-running={running || undefined}
          data-input-paused={inputPaused || undefined}
          aria-describedby={inputPaused ? pausedId : undefined}
        />
        {loading ? (
          <p className="run-terminal__overlay" aria-busy="true">
            {view.from === 'start' ? 'Loading the full output…' : 'Loading output…'}
          </p>
        ) : null}
      </div>
      {inputPaused ? (
        <p id={pausedId} className="run-terminal__input-paused" role="status">
          {hostUnreachable !== null
            ? `Input paused: ${hostUnreachable} cannot be reached, so the terminal takes no typing (nothing would reach the run). It takes input again as soon as ${hostUnreachable} answers; the output goes on from where it stopped.`
            : `Input paused: ${refusedInput}`}
        </p>
      ) : null}
      {view.state === 'error' ? (
        <div className="run-terminal__footer">
          <ErrorAlert error={view.error} prefix="Could not open the output." />
          <button type="button" className="button button--small" onClick={() => openOutput(view.from, view.until)}>
            Try again
          </button>
        </div>
      ) : footerNote ? (
        <div className="run-terminal__footer">
          <p className="muted" aria-live="polite">
            {footerNote}
          </p>
          {paging ? (
            <div className="run-terminal__paging">
              {canShowLater ? (
                <button type="button" className="button button--small" onClick={showLater}>
                  Show later output
                </button>
              ) : null}
              <button type="button" className="button button--small" onClick={() => openOutput('tail')}>
                Back to live output
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
