import { resolve } from 'node:path';
import { createApp } from '../app.js';
import { InProcessMock } from '../mock/in-process-mock.js';
import { createLogger, logFormatFrom, type LogFormat } from '../telemetry/create-logger.js';
import { DEFAULT_ADMIN_TOKEN_FILE, writeAdminTokenFile } from './admin-token-file.js';
import { loadConfigFile } from './load-config-file.js';

export async function runServe(options: { config: string; port?: number; host?: string }): Promise<void> {
  let logFormat: LogFormat;
  try {
    logFormat = logFormatFrom(process.env, process.stdout.isTTY === true);
  } catch (error) {
    console.error(`switchyard: ${(error as Error).message}`);
    process.exitCode = 1;
    return;
  }
  const logger = createLogger(logFormat);
  const configSource = loadConfigFile(options.config);
  if (!configSource) {
    process.exitCode = 1;
    return;
  }
  for (const note of configSource.notes) logger.info(note);
  // Only a config that names a token file and sets no token gets one minted (the quick start).
  const { token, token_file: tokenFile } = configSource.current.admin;
  let mintedTokenFile: string | undefined;
  if (token === undefined && tokenFile !== undefined) {
    const path = resolve(tokenFile);
    mintedTokenFile = path;
    try {
      configSource.useMintedAdminToken(writeAdminTokenFile(path));
    } catch (error) {
      console.error(`switchyard: cannot write admin.token_file ${path}: ${(error as Error).message}`);
      process.exitCode = 1;
      return;
    }
    const readBy = path === resolve(DEFAULT_ADMIN_TOKEN_FILE) ? 'the admin commands run from this directory read it' : 'pass it to the admin commands with --token';
    logger.info({ file: path }, `admin token written to ${path} (${readBy})`);
  }
  configSource.watch();
  const mock = new InProcessMock();
  await mock.follow(configSource, (error) => logger.error({ err: error }, 'could not start the in-process mock'));
  const app = await createApp({ configSource, logger, mockUrl: () => mock.url });
  // Before listening: a signal that arrives as soon as the gateway says it listens must drain it.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const drainMs = configSource.current.server.drain_ms;
    logger.info({ signal, drainMs }, 'shutting down');
    app
      .close({ drainMs })
      .then(() => mock.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'error while shutting down');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  let url: string;
  try {
    url = await app.listen({ port: options.port, host: options.host });
  } catch (error) {
    console.error(`switchyard: cannot start: ${(error as Error).message}`);
    await app.close();
    await mock.close();
    process.exitCode = 1;
    return;
  }
  logger.info({ url, config: configSource.file, routes: Object.keys(configSource.current.routes) }, `Switchyard listening on ${url}`);
  const signIn = mintedTokenFile ? `sign in with the token in ${mintedTokenFile}` : 'sign in with admin.token';
  const oidc = configSource.current.admin.oidc;
  const throughIdentityProvider = oidc ? `, or through ${new URL(oidc.issuer).host}` : '';
  logger.info({ url: `${url}/ui/` }, `dashboard at ${url}/ui/ (${signIn}${throughIdentityProvider})`);
}
