/**
 * Just enough of the Prometheus text format to read the platform's /metrics: unlabelled counters and histograms,
 * and the difference between two scrapes, so figures cover the measured window only (not the warm-up).
 */

/** Every sample of one scrape, keyed by the line's name and labels as written (`name{le="10"}`). */
export type Scrape = ReadonlyMap<string, number>;

export async function scrapeMetrics(url: string): Promise<Scrape> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** A counter's (or gauge's) increase between two scrapes; 0 when it is missing. */
export function delta(before: Scrape, after: Scrape, name: string): number {
  return (after.get(name) ?? 0) - (before.get(name) ?? 0);
}

export interface HistogramWindow {
  count: number;
  mean: number;
  /** Estimated by linear interpolation within the bucket, as Prometheus' histogram_quantile does. */
  p50: number;
  p99: number;
}

/** A histogram's observations between two scrapes: how many, their mean and estimated quantiles. */
export function histogramWindow(before: Scrape, after: Scrape, name: string): HistogramWindow {
  const buckets: { le: number; count: number }[] = [];
  for (const [key, value] of after) {
    const match = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\}$`).exec(key);
    if (match)
      buckets.push({ le: match[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(match[1]), count: value - (before.get(key) ?? 0) });
  }
  buckets.sort((a, b) => a.le - b.le);
  const count = delta(before, after, `${name}_count`);
  const sum = delta(before, after, `${name}_sum`);
  const quantile = (q: number) => {
    const rank = q * count;
    let lower = 0;
    let below = 0;
    for (const bucket of buckets) {
      if (bucket.count >= rank) {
        // The +Inf bucket has no upper bound: report its lower edge, as Prometheus does.
        if (!Number.isFinite(bucket.le)) return lower;
        const inBucket = bucket.count - below;
        return inBucket <= 0 ? bucket.le : lower + ((bucket.le - lower) * (rank - below)) / inBucket;
      }
      lower = bucket.le;
      below = bucket.count;
    }
    return lower;
  };
  return { count, mean: count > 0 ? sum / count : 0, p50: count > 0 ? quantile(0.5) : 0, p99: count > 0 ? quantile(0.99) : 0 };
}
