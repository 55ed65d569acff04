// The one histogram every request observes (http_server_request_duration_seconds), kept apart
// from prom-client: its observe() validates and hashes the labels on every call, ~1-2 µs here,
// a few percent of the cheapest route. A series here is found once per (route, status, method)
// and an observation is a short bucket search and three additions. It renders itself in the
// same text format as the registry, appended to the registry's text at each scrape.

/** One labelled series: per-bucket counts (not cumulative), the last slot for above every bound. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly bounds: readonly number[],
    /** Rendered once: `a="x",b="y"`. */
    readonly labelText: string,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

const escapeLabelValue = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

export class LabelledHistogram {
  readonly #series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {}

  /** The series of these label values (in labelNames' order), made on first use. */
  series(labelValues: readonly string[]): HistogramSeries {
    const key = labelValues.join('\u0000');
    let series = this.#series.get(key);
    if (!series) {
      series = new HistogramSeries(this.bounds, this.labelNames.map((name, i) => `${name}="${escapeLabelValue(labelValues[i]!)}"`).join(','));
      this.#series.set(key, series);
    }
    return series;
  }

  /** The Prometheus text exposition (format 0.0.4) of every series. */
  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const series of this.#series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        lines.push(`${this.name}_bucket{${series.labelText},le="${bound}"} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket{${series.labelText},le="+Inf"} ${series.count}`);
      lines.push(`${this.name}_sum{${series.labelText}} ${series.sum}`);
      lines.push(`${this.name}_count{${series.labelText}} ${series.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
