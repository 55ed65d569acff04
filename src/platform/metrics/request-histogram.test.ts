import { describe, expect, it } from 'vitest';
import { parseExposition } from '../../../test/platform/metrics-scrape.ts';
import { LabelledHistogram } from './request-histogram.ts';

describe('LabelledHistogram', () => {
  it('renders cumulative buckets, +Inf, sum and count per series, as the text format has them', () => {
    const histogram = new LabelledHistogram('h_seconds', 'A test histogram.', ['route', 'code'], [0.01, 0.1, 1]);
    const series = histogram.series(['/a', '200']);
    for (const value of [0.005, 0.01, 0.05, 0.5, 2, 0.1]) series.observe(value);
    histogram.series(['/b "quoted" \\ back\nslash', '404']).observe(0.2);
    const text = histogram.render();
    expect(text.startsWith('# HELP h_seconds A test histogram.\n# TYPE h_seconds histogram\n')).toBe(true);
    const samples = parseExposition(text);
    const of = (name: string, labels: Record<string, string>) => samples.find((s) => s.name === name && JSON.stringify(s.labels) === JSON.stringify(labels))?.value;
    const a = { route: '/a', code: '200' };
    // A value equal to a bound counts in that bound's bucket (le: less than or equal).
    expect([0.01, 0.1, 1].map((le) => of('h_seconds_bucket', { ...a, le: String(le) }))).toEqual([2, 4, 5]);
    expect(of('h_seconds_bucket', { ...a, le: '+Inf' })).toBe(6);
    expect(of('h_seconds_count', a)).toBe(6);
    expect(of('h_seconds_sum', a)).toBeCloseTo(2.665, 10);
    const b = { route: '/b "quoted" \\ back\nslash', code: '404' };
    expect(of('h_seconds_bucket', { ...b, le: '1' })).toBe(1);
    expect(of('h_seconds_bucket', { ...b, le: '0.1' })).toBe(0);
  });

  it('gives the same series for the same label values, and a new one only for new values', () => {
    const histogram = new LabelledHistogram('h', 'h', ['x'], [1]);
    expect(histogram.series(['1'])).toBe(histogram.series(['1']));
    expect(histogram.series(['1'])).not.toBe(histogram.series(['2']));
  });
});
