// User Timing marks on the canvas open path (socket open, snapshot frame,
// store built, viewport set, first nodes mounted). They cost nothing without a
// reader and let scripts/bench_browser.py split the open time into its parts.
export function perfMark(name: string): void {
  try {
    performance.mark(`canvasweb:${name}`);
  } catch {
    /* no User Timing (old runtime): nothing to record */
  }
}
