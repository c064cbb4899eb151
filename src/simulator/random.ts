/**
 * Seeded randomness for the simulator. Each virtual device draws from its own generator seeded by its TUID, so a
 * run is reproducible in tests and two devices never walk in lockstep, without Math.random's global state.
 */

/** A source of numbers in [0, 1), like Math.random. */
export type RandomSource = () => number;

/** 32-bit FNV-1a hash of a string: a stable seed from a TUID. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Mulberry32: a small, fast generator with good enough spread for simulated sensor noise. Not for secrets. The same
 * seed always yields the same sequence.
 */
export function createRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rounds to a number of decimals, so reported values look like a sensor's rather than a float's. */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** Keeps a value within [min, max]. */
export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
