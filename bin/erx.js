#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build`, which `npm install` runs as its
// prepare step). A missing or out-of-date dist/ is refused with the command that fixes it rather
// than built here: building needs the devDependencies, which production installs leave out,
// would make a start's time unpredictable, and would race when several instances start at once.
import { distState } from '../scripts/dist-state.js';

const state = distState();
if (!state.ok) {
  process.stderr.write(`erx: ${state.problem}; run \`npm run build\`\n`);
  process.exit(1);
}
await import('../dist/src/main.js');
