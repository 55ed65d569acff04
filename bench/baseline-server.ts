// The yardstick: a bare Fastify 5 app on the same Node and the same machine, measured in the
// same run as the API, so a ratio to it shows what our routes cost beyond HTTP and JSON.
// No logging, no schemas, no plugins. Started by the bench with HOST and PORT set.
import Fastify from 'fastify';

const app = Fastify({ logger: false });

app.get('/baseline', async () => ({ status: 'ok', service: 'baseline' }));
app.post('/baseline', async (request) => request.body);

const shutdown = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
