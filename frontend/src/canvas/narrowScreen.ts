// Widths where the side panels stop fitting beside the canvas (the same numbers as CanvasLayout.css).

/** up to this width the inspector floats over the canvas instead of taking a column */
export const OVERLAY_INSPECTOR_MAX_WIDTH = 900;
/** up to this width (phones) chat and inspector are sheets over the canvas, one at a time */
export const PHONE_MAX_WIDTH = 640;

const width = () => (typeof window === 'undefined' ? Infinity : window.innerWidth);

export const inspectorFloats = () => width() <= OVERLAY_INSPECTOR_MAX_WIDTH;
export const isPhoneWidth = () => width() <= PHONE_MAX_WIDTH;

/** a finger is the main pointer (phones, tablets): touch hints come first */
export const isCoarsePointer = () =>
  typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia('(pointer: coarse)').matches;
