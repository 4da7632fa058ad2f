import { pino } from 'pino';
import { createApp } from '../app.js';
import { ConfigError, formatIssue } from '../config/config-issue.js';
import { ConfigSource } from '../config/config-source.js';

export async function runServe(options: { config: string; port?: number; host?: string }): Promise<void> {
  const logger = pino({ name: 'switchyard' });
  let configSource: ConfigSource;
  try {
    configSource = ConfigSource.load(options.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${options.config}: ${error.issues.length} error(s)`);
    for (const issue of error.issues) console.error(`  ${formatIssue(issue)}`);
    process.exitCode = 1;
    return;
  }
  for (const note of configSource.notes) logger.info(note);
  configSource.watch();
  const app = await createApp({ configSource, logger });
  let url: string;
  try {
    url = await app.listen({ port: options.port, host: options.host });
  } catch (error) {
    console.error(`switchyard: cannot start: ${(error as Error).message}`);
    await app.close();
    process.exitCode = 1;
    return;
  }
  logger.info({ url, config: configSource.file, routes: Object.keys(configSource.current.routes) }, `Switchyard listening on ${url}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const drainMs = configSource.current.server.drain_ms;
    logger.info({ signal, drainMs }, 'shutting down');
    app.close({ drainMs }).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
