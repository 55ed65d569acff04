// The interactive API docs (Swagger UI at `<base path>/docs`) are made on their first request,
// not when erx starts: registering @fastify/swagger-ui loads @fastify/static and its packages
// and adds their routes, a tenth of `erx serve`'s start, for a page few requests ever ask for.
// The page runs in an app of its own that never listens; requests under the prefix are passed
// to it in process (`inject`), and its answer, headers and all, is the reply.
import Fastify, { type FastifyInstance, type FastifyPluginCallback, type FastifyReply, type FastifyRequest } from 'fastify';

export interface DocsPageOptions {
  /** Where the page is served: `<base path>/docs`. */
  prefix: string;
  /** The OpenAPI document the page shows. */
  openApiUrl: string;
  /** The page's Content-Security-Policy (docsContentSecurityPolicy). */
  contentSecurityPolicy: string;
}

/** Headers of the docs app's answer that belong to its own connection, not to the reply. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/**
 * Stands in, in the docs app, for @fastify/swagger (which Swagger UI names as its dependency):
 * the page's own /json and /yaml routes read the document of the app that serves the API.
 * Named and not encapsulated as fastify-plugin would make it.
 */
function documentOf(app: FastifyInstance): FastifyPluginCallback {
  const plugin: FastifyPluginCallback = (docs, _options, done) => {
    docs.decorate('swagger', ((...args: Parameters<FastifyInstance['swagger']>) => app.swagger(...args)) as FastifyInstance['swagger']);
    done();
  };
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true, [Symbol.for('plugin-meta')]: { name: '@fastify/swagger' } });
}

async function buildDocsApp(app: FastifyInstance, options: DocsPageOptions): Promise<FastifyInstance> {
  const { default: swaggerUi } = await import('@fastify/swagger-ui');
  const docs = Fastify();
  await docs.register(documentOf(app));
  await docs.register(swaggerUi, { routePrefix: options.prefix, uiConfig: { url: options.openApiUrl }, staticCSP: options.contentSecurityPolicy });
  await docs.ready();
  return docs;
}

/** Routes every GET and HEAD under `options.prefix` to the docs app, made once, when first asked for. */
export function installDocsPage(app: FastifyInstance, options: DocsPageOptions): void {
  let docs: Promise<FastifyInstance> | undefined;
  const docsApp = () =>
    (docs ??= buildDocsApp(app, options).catch((error: unknown) => {
      docs = undefined; // the next request tries again
      throw error;
    }));
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const answer = await (await docsApp()).inject({ method: request.method as 'GET' | 'HEAD', url: request.url, headers: request.headers });
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !CONNECTION_HEADERS.has(name)) reply.header(name, value);
    return reply.code(answer.statusCode).send(answer.rawPayload);
  };
  app.addHook('onClose', async () => {
    await (await docs?.catch(() => undefined))?.close();
  });
  // Not operations of the API: left out of the OpenAPI document, as Swagger UI's own routes are.
  app.route({ method: ['GET', 'HEAD'], url: options.prefix, schema: { hide: true }, handler });
  app.route({ method: ['GET', 'HEAD'], url: `${options.prefix}/*`, schema: { hide: true }, handler });
}
