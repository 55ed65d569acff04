// The small PBS extract the sandbox ships (sandbox-pbs/, the published CSV format): a few dozen
// common items, among them authority-required, streamlined, RPBS-only and Schedule 8 ones
// (oxycodone), which the sandbox seed imports so the portal has medicines to find. Copied into
// dist/ beside this file by the build.
import { fileURLToPath } from 'node:url';

export const SANDBOX_PBS_SCHEDULE = fileURLToPath(new URL('./sandbox-pbs/', import.meta.url));
