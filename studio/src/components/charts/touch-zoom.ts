import type uPlot from 'uplot';

/** Movement (px) before a one-finger gesture counts as a drag across the chart or a scroll of the page. */
const decideAfterPx = 10;
/** A drag or spread narrower than this (px) zooms nothing, like uPlot's own mouse selection. */
const smallestZoomPx = 5;

/**
 * Zooming a chart by touch as the mouse does (uPlot reads mouse events only): a one-finger horizontal drag selects a
 * window, shown as uPlot's selection while the finger moves, and zooms to it when the finger lifts; two fingers
 * spread apart zoom in so the times under them stay under them. A one-finger gesture that starts vertical is left to
 * the browser, which scrolls the page (the plot's CSS `touch-action: pan-y` leaves vertical panning to it and
 * horizontal moves and pinches to this). `zoomTo` gets the window in the x scale's units (Unix seconds).
 * Returns the function that removes the listeners.
 */
export function attachTouchZoom(chart: uPlot, zoomTo: (from: number, to: number) => void): () => void {
  const over = chart.over;
  let gesture:
    | { kind: 'undecided' | 'drag'; startX: number; startY: number; x: number }
    | { kind: 'scroll' }
    | { kind: 'pinch'; startLeft: number; startRight: number; left: number; right: number }
    | null = null;

  const xIn = (touch: Touch) => touch.clientX - over.getBoundingClientRect().left;
  const clamp = (x: number) => Math.min(Math.max(x, 0), over.clientWidth);
  const clearSelection = () => chart.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
  const pinchOf = (touches: TouchList) => {
    const [a, b] = [xIn(touches[0]!), xIn(touches[1]!)];
    return { left: Math.min(a, b), right: Math.max(a, b) };
  };

  function start(event: TouchEvent) {
    if (event.touches.length === 1) {
      const touch = event.touches[0]!;
      gesture = { kind: 'undecided', startX: xIn(touch), startY: touch.clientY, x: xIn(touch) };
    } else if (event.touches.length === 2) {
      clearSelection();
      const { left, right } = pinchOf(event.touches);
      gesture = { kind: 'pinch', startLeft: left, startRight: right, left, right };
    } else gesture = null;
  }

  function move(event: TouchEvent) {
    if (!gesture || gesture.kind === 'scroll') return;
    if (gesture.kind === 'pinch') {
      if (event.touches.length !== 2) return;
      event.preventDefault();
      Object.assign(gesture, pinchOf(event.touches));
      return;
    }
    const touch = event.touches[0]!;
    const dx = xIn(touch) - gesture.startX;
    const dy = touch.clientY - gesture.startY;
    if (gesture.kind === 'undecided') {
      if (Math.abs(dy) >= decideAfterPx && Math.abs(dy) > Math.abs(dx)) {
        gesture = { kind: 'scroll' };
        return;
      }
      if (Math.abs(dx) < decideAfterPx) return;
      gesture.kind = 'drag';
    }
    if (event.cancelable) event.preventDefault();
    gesture.x = clamp(xIn(touch));
    const left = Math.min(clamp(gesture.startX), gesture.x);
    chart.setSelect({ left, top: 0, width: Math.abs(gesture.x - clamp(gesture.startX)), height: over.clientHeight }, false);
  }

  function end(event: TouchEvent) {
    const done = gesture;
    if (!done || event.touches.length > 0) return;
    gesture = null;
    clearSelection();
    if (done.kind === 'drag') {
      const left = Math.min(clamp(done.startX), done.x);
      const right = Math.max(clamp(done.startX), done.x);
      if (right - left >= smallestZoomPx) zoomTo(Math.floor(chart.posToVal(left, 'x')), Math.ceil(chart.posToVal(right, 'x')));
    } else if (done.kind === 'pinch') {
      const before = done.startRight - done.startLeft;
      const after = done.right - done.left;
      if (before < smallestZoomPx || after - before < smallestZoomPx) return;
      // The times under the fingers when they touched stay under them: seconds per pixel shrink by before / after.
      const startTime = chart.posToVal(done.startLeft, 'x');
      const secondsPerPx = (chart.posToVal(done.startRight, 'x') - startTime) / after;
      const from = startTime - done.left * secondsPerPx;
      zoomTo(Math.floor(from), Math.ceil(from + over.clientWidth * secondsPerPx));
    }
  }

  const cancel = () => {
    gesture = null;
    clearSelection();
  };
  over.addEventListener('touchstart', start, { passive: true });
  over.addEventListener('touchmove', move, { passive: false });
  over.addEventListener('touchend', end);
  over.addEventListener('touchcancel', cancel);
  return () => {
    over.removeEventListener('touchstart', start);
    over.removeEventListener('touchmove', move);
    over.removeEventListener('touchend', end);
    over.removeEventListener('touchcancel', cancel);
  };
}
