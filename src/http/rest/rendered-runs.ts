import type { KnownRuns } from '../../domain/series/series-types.js';

export interface RunsReading {
  known: KnownRuns;
  /** The text of a run `known` answered for. */
  held(etag: string): Buffer;
  keep(etag: string, text: Buffer, count: number): void;
}

/** What an entry costs beside its bytes: the etag, the map's entry. */
const entryOverhead = 200;

/**
 * Series runs' points as the series answer writes them (JSON text, as bytes), by the run's etag (see PointRun),
 * the least recently used dropped beyond `budgetBytes`. A run with an etag does not change while its etag stays:
 * a compacted day's is written anew by the store with every change (migration 0019), a raw hour's is made of its
 * messages' keys. So its text is made once and copied into every answer that holds it: making the text of a year
 * of hours, or reading a day of raw messages, was most of such an answer's time. Per instance, in memory; no
 * instance can serve another's stale text, as an etag never stands for two contents.
 */
export class RenderedRuns {
  private readonly runs = new Map<string, { text: Buffer; count: number }>();
  private bytes = 0;

  constructor(private readonly budgetBytes: number) {}

  /**
   * For one answer: `known` tells the store which runs need not be read, holding each one it answers for until
   * the answer is written (`held`), so that a run another answer pushes out meanwhile is still there.
   */
  reading(): RunsReading {
    const held = new Map<string, Buffer>();
    return {
      known: (etag) => {
        const run = this.runs.get(etag);
        if (run === undefined) return undefined;
        // Most recently used last: Map keeps insertion order, and the oldest entries go first.
        this.runs.delete(etag);
        this.runs.set(etag, run);
        held.set(etag, run.text);
        return run.count;
      },
      held: (etag) => {
        const text = held.get(etag);
        if (text === undefined) throw new Error(`the store answered a run the caller did not know (etag ${etag})`);
        return text;
      },
      keep: (etag, text, count) => this.keep(etag, text, count),
    };
  }

  private keep(etag: string, text: Buffer, count: number): void {
    const cost = text.byteLength + etag.length + entryOverhead;
    if (cost > this.budgetBytes || this.runs.has(etag)) return;
    this.runs.set(etag, { text, count });
    this.bytes += cost;
    for (const [oldest, run] of this.runs) {
      if (this.bytes <= this.budgetBytes) break;
      this.runs.delete(oldest);
      this.bytes -= run.text.byteLength + oldest.length + entryOverhead;
    }
  }

  get size(): { runs: number; bytes: number } {
    return { runs: this.runs.size, bytes: this.bytes };
  }
}
