import type { Metric, Registry } from 'prom-client';

interface Series {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/**
 * A histogram with one label whose observation is a bucket search and three additions, exported through
 * prom-client's registry in the same text format as its Histogram. prom-client's Histogram hashes the label set on
 * every observation, which on the store's fastest calls (a SQLite direct read of 2 to 3 µs) measured about half a
 * microsecond more per call than this (docs/decisions.md, store query time). A label value's observer is made once
 * and kept by its caller.
 */
export class OperationHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly label: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** Records durations (or any figure) under one value of the label; the series appears with its first call. */
  observer(value: string): (figure: number) => void {
    let series = this.series.get(value);
    if (!series) {
      series = { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(value, series);
    }
    const { buckets } = this;
    const target = series;
    return (figure) => {
      let bucket = 0;
      while (bucket < buckets.length && figure > buckets[bucket]!) bucket++;
      target.counts[bucket]!++;
      target.sum += figure;
      target.count++;
    };
  }

  /** What prom-client's registry formats: cumulative buckets, +Inf, sum and count per label value. */
  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const [value, series] of this.series) {
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += series.counts[index]!;
        values.push({ labels: { le: bound, [this.label]: value }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', [this.label]: value }, value: series.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { [this.label]: value }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { [this.label]: value }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.series.clear();
  }
}
