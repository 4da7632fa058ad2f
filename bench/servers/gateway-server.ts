/**
 * Child process: Switchyard itself, built by the real composition root (createApp) from the
 * config file named in argv[2], on an ephemeral loopback port.
 */
import { createApp } from '../../src/app.js';
import { ConfigSource } from '../../src/config/config-source.js';
import { announce, failStartup } from './announce.js';

try {
  const configFile = process.argv[2];
  if (configFile === undefined) throw new Error('usage: gateway-server.js CONFIG_FILE');
  // An empty environment: the bench config needs no secrets, and none should leak into it.
  const configSource = ConfigSource.load(configFile, { env: {} });
  const app = await createApp({ configSource });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  announce(url, () => app.close());
} catch (error) {
  failStartup(error);
}
