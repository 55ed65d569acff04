#!/usr/bin/env node
// `npm run build` (also `npm install`'s prepare step, and `npm start`'s prestart with --if-stale):
// compiles src/ and migrations/ into dist/ (tests left out), and copies the files the code reads
// beside itself (portal templates, stylesheet) to the same places under dist/src/.
// Each file is compiled on its own with TypeScript's transpileModule: the project is written for
// that (isolatedModules, verbatimModuleSyntax), so the output equals a whole-program emit, in a
// fraction of the time and memory; type checking is `npm run typecheck`'s job, which CI runs.
// Relative imports keep their .ts extensions in the source and become .js in the output. The
// output is written to a fresh folder and swapped in whole: no server starts from half a build.
// Then the compiled CLI is bundled into dist/bundle/ (scripts/bundle-dist.js), which `erx` runs.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleDist } from './bundle-dist.js';
import { distState, lockFileHash, DIST, ROOT, STAMP } from './dist-state.js';

/** Folders compiled, each to the same path under dist/. */
const COMPILED = ['src', 'migrations'];

function loadTypeScript() {
  try {
    return createRequire(path.join(ROOT, 'package.json'))('typescript');
  } catch {
    throw new Error('TypeScript is not installed (a devDependency): run `npm install` with dev dependencies, then `npm run build`');
  }
}

function compileTree(ts, from, to) {
  const options = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    rewriteRelativeImportExtensions: true,
    verbatimModuleSyntax: true,
    useDefineForClassFields: true,
  };
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) {
      compileTree(ts, source, path.join(to, entry.name));
    } else if (entry.name.endsWith('.test.ts')) {
      continue;
    } else if (entry.name.endsWith('.ts')) {
      const { outputText, diagnostics } = ts.transpileModule(fs.readFileSync(source, 'utf8'), { fileName: source, compilerOptions: options, reportDiagnostics: true });
      if (diagnostics?.length) throw new Error(`${path.relative(ROOT, source)}: ${ts.flattenDiagnosticMessageText(diagnostics[0].messageText, '\n')}`);
      fs.writeFileSync(path.join(to, entry.name.replace(/\.ts$/, '.js')), outputText);
    } else {
      fs.copyFileSync(source, path.join(to, entry.name));
    }
  }
}

export async function buildDist() {
  const ts = loadTypeScript();
  const staging = `${DIST}.building-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    for (const folder of COMPILED) compileTree(ts, path.join(ROOT, folder), path.join(staging, folder));
    await bundleDist(ROOT, staging);
    const lock = lockFileHash();
    fs.writeFileSync(path.join(staging, path.basename(STAMP)), `${new Date().toISOString()}\n${lock === undefined ? '' : `lock ${lock}\n`}`);
    fs.rmSync(DIST, { recursive: true, force: true });
    fs.renameSync(staging, DIST);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === path.join(ROOT, 'scripts', 'build-dist.js');
if (invokedDirectly) {
  const ifStale = process.argv.includes('--if-stale');
  const state = distState();
  if (ifStale && state.ok) process.exit(0);
  try {
    const started = Date.now();
    await buildDist();
    process.stderr.write(`built dist/ in ${Date.now() - started} ms${state.ok ? '' : ` (${state.problem})`}\n`);
  } catch (error) {
    process.stderr.write(`build: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
