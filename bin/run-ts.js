#!/usr/bin/env node
// `node bin/run-ts.js file.ts [args]`: runs a TypeScript script (benchmarks, tools) via tsx, a
// devDependency. The service itself never runs this way: `erx` runs the compiled dist/.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

const [script, ...rest] = process.argv.slice(2);
if (!script) {
  process.stderr.write('usage: node bin/run-ts.js <script.ts> [args]\n');
  process.exit(2);
}
process.argv = [process.argv[0], script, ...rest];
register();
await import(pathToFileURL(path.resolve(script)).href);
