import { loadConfig } from './config.js';
import { startApp } from './app.js';

const app = await startApp({ config: loadConfig() });
app.logger.info({ url: app.url }, `serving REST at ${app.url}/api and GraphQL at ${app.url}/graphql`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.logger.info({ signal }, 'shutting down');
    void app.close().then(() => process.exit(0));
  });
}
