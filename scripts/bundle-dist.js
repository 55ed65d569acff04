// The second half of `npm run build`: bundles the compiled CLI (dist/src/main.js) and the packages
// it imports into dist/bundle/, which `erx` runs. Resolving and reading ~1,500 module files was
// most of every command's start (a profile of `erx --help`: 0.8 s, of which module loading was
// ~0.55 s); one file is read and compiled at once. What is imported with `import()` (PDF, HI SOAP
// stack, PostgreSQL client, ...) becomes a chunk of its own, loaded only when a command needs it.
// The per-file output under dist/src/ stays: the bundle is built from it, and the portal's
// templates and stylesheet are still read from there.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Left to Node's own resolution at run time, each for a reason of its own. */
export const EXTERNAL_PACKAGES = [
  // native addons
  'better-sqlite3',
  'better-sqlite3-napi',
  // pg's optional native client, absent unless installed
  'pg-native',
  // serves the docs page's static files from beside its own code, which a bundle does not carry
  // (pino finds its worker scripts that way too, but only for transports, which erx does not use;
  // @fastify/swagger reads its package.json only for defaults erx sets, and survives without it)
  '@fastify/swagger-ui',
];

/**
 * Our modules find files beside themselves with `new URL('./x', import.meta.url)`. In the bundle
 * import.meta.url is the chunk's, so each module's is replaced by the URL of its own compiled
 * file under dist/src/, found relative to the chunk (so a moved install still finds them).
 */
function keepOwnModuleUrls(outdir, compiledRoots) {
  return {
    name: 'keep-own-module-urls',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (!compiledRoots.some((root) => args.path.startsWith(root + path.sep))) return undefined;
        const text = fs.readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const own = path.relative(outdir, args.path).split(path.sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`), loader: 'js' };
      });
    },
  };
}

function loadEsbuild(root) {
  try {
    return createRequire(path.join(root, 'package.json'))('esbuild');
  } catch {
    throw new Error('esbuild is not installed (a devDependency): run `npm install` with dev dependencies, then `npm run build`');
  }
}

/** Bundles `<dist>/src/main.js` into `<dist>/bundle/erx.js` (and its chunks). */
export async function bundleDist(root, dist) {
  const esbuild = loadEsbuild(root);
  const outdir = path.join(dist, 'bundle');
  await esbuild.build({
    entryPoints: { erx: path.join(dist, 'src', 'main.js') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL_PACKAGES,
    // Not keepNames: it defines `name` on every function as it is created, closures made per
    // request included (validate 0.71 of the unbundled build with it). Only names that clash
    // across modules are renamed (`plugin2`); no code of ours reads a function's or class's name.
    plugins: [keepOwnModuleUrls(outdir, ['src', 'migrations'].map((folder) => path.join(dist, folder)))],
    // CommonJS packages call require() for Node's modules; an ES module has none of its own.
    banner: { js: "import { createRequire as erxCreateRequire } from 'node:module'; const require = erxCreateRequire(import.meta.url);" },
    logLevel: 'error',
  });
}
