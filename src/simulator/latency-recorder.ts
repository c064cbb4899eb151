/**
 * Publish-to-acknowledgement latencies of a whole fleet in bounded memory. A benchmark sends millions of
 * publishes, so the recorder keeps a uniform sample (reservoir sampling) for the percentiles and the exact maximum.
 */
import type { RandomSource } from './random.js';

export interface LatencySummary {
  /** Milliseconds, rounded to 0.1; 0 when nothing was recorded. */
  p50: number;
  p99: number;
  max: number;
}

/** Enough samples for a stable p99 (about 500 above it), little enough to sort in a few milliseconds. */
const defaultCapacity = 50_000;

export class LatencyRecorder {
  private readonly samples: Float64Array;
  private count = 0;
  private maximum = 0;

  constructor(
    private readonly random: RandomSource = Math.random,
    capacity = defaultCapacity,
  ) {
    this.samples = new Float64Array(capacity);
  }

  /** Records one latency in milliseconds. */
  record(milliseconds: number): void {
    if (milliseconds > this.maximum) this.maximum = milliseconds;
    if (this.count < this.samples.length) {
      this.samples[this.count] = milliseconds;
    } else {
      // Algorithm R: every latency so far has the same chance of being in the sample.
      const slot = Math.floor(this.random() * (this.count + 1));
      if (slot < this.samples.length) this.samples[slot] = milliseconds;
    }
    this.count += 1;
  }

  /** p50, p99 (nearest rank over the sample) and the exact maximum. */
  summarize(): LatencySummary {
    const size = Math.min(this.count, this.samples.length);
    if (size === 0) return { p50: 0, p99: 0, max: 0 };
    const sorted = this.samples.slice(0, size).sort();
    const at = (quantile: number) => sorted[Math.min(size - 1, Math.ceil(quantile * size) - 1)] ?? 0;
    const round = (value: number) => Math.round(value * 10) / 10;
    return { p50: round(at(0.5)), p99: round(at(0.99)), max: round(this.maximum) };
  }
}
