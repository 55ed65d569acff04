// A package loaded lazily (`import('<package>')`) is read the same way under Node's loader and in
// erx's bundle: esbuild's chunk of a CommonJS package exports `default` alone, so named exports
// taken straight off the namespace are undefined in `erx serve` while every test of src/ passes
// (undici's Agent, pdf-lib's PDFDocument and OpenTelemetry's resources were, once). Each such
// import goes through packageExports (src/platform/package-namespace.ts) or takes `default`.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { listFiles } from './import-graph.ts';

const LAZY_PACKAGE = /(?<!typeof )import\('(?!node:|\.)[^']+'\)/;

/** Lines that import a package lazily and read it neither through packageExports nor by its default. */
export function unsafeLazyImports(file: string, text: string): string[] {
  return text
    .split('\n')
    .map((line, index) => ({ line, index }))
        .filter(({ line }) => !/^\s*(\/\/|\*)/.test(line))
    .filter(({ line }) => LAZY_PACKAGE.test(line) && !/packageExports|\{ default: |\)\)\.default\b/.test(line))
    .map(({ line, index }) => `${file}:${index + 1}: ${line.trim()}`);
}

describe('lazily loaded packages', () => {
  it('are read through packageExports or by their default, so the bundle gives erx the same exports', () => {
    const files = listFiles(process.cwd(), ['src/']).filter((file) => !file.endsWith('.test.ts'));
    const found = files.flatMap((file) => unsafeLazyImports(file, fs.readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
  });

  it('finds a planted named read off a lazy import, and passes the safe forms', () => {
    expect(unsafeLazyImports('a.ts', "const { Agent } = await import('undici');")).toHaveLength(1);
    expect(unsafeLazyImports('a.ts', "const { Agent } = packageExports(await import('undici'));")).toEqual([]);
    expect(unsafeLazyImports('a.ts', "const { default: bwipjs } = await import('bwip-js');")).toEqual([]);
    expect(unsafeLazyImports('a.ts', "type U = typeof import('undici');")).toEqual([]);
  });
});
