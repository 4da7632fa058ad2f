/** Child process: the shared upstream, Switchyard's own mock provider on an ephemeral loopback port. */
import { startMockProvider } from '../../src/mock/mock-provider.js';
import { announce, failStartup } from './announce.js';

// The mock keeps recent attempts for inspection; the bench never reads them, so keep few.
const retainedAttempts = 64;

try {
  const mock = await startMockProvider({ host: '127.0.0.1', port: 0, maxAttempts: retainedAttempts });
  announce(mock.url, () => mock.close());
} catch (error) {
  failStartup(error);
}
