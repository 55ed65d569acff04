#!/usr/bin/env node
// Runs the compiled CLI (dist/bundle/erx.js, built by `npm run build`, which `npm install` runs as
// its prepare step). A missing or out-of-date dist/ is refused with the command that fixes it
// rather than built here: building needs the devDependencies, which production installs leave
// out, would make a start's time unpredictable, and would race when several instances start at once.
import fs from 'node:fs';
import module from 'node:module';

// `erx --version` (or -V) answers before anything else is loaded or checked: it is what scripts
// and health probes call to see that erx is installed, and needs nothing but package.json.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

// Node 22.1+ keeps the compiled code of the bundle on disk (in the OS's temporary directory)
// for the next start; Node 20 has no such cache and starts without it.
module.enableCompileCache?.();

const { distState } = await import('../scripts/dist-state.js');
const state = distState();
if (!state.ok) {
  process.stderr.write(`erx: ${state.problem}; run \`npm run build\`\n`);
  process.exit(1);
}
await import('../dist/bundle/erx.js');
