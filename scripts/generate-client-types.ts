// `npm run client:generate`: writes packages/erx-client/src/generated/openapi.ts from erx's
// OpenAPI document (see client-types.ts). Commit the result; a test fails while it is stale.
import fs from 'node:fs';
import { CLIENT_TYPES_FILE, loadOpenApiDocument, renderClientTypes } from './client-types.ts';

const source = await renderClientTypes(await loadOpenApiDocument());
fs.writeFileSync(CLIENT_TYPES_FILE, source);
process.stdout.write(`wrote ${CLIENT_TYPES_FILE} (${source.length} characters)\n`);
