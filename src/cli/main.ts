#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { runCheckConfig } from './check-config.js';
import { runDemo } from './demo.js';
import { runMock } from './mock.js';
import { runRequestsShow } from './requests-show.js';
import { runServe } from './serve.js';

function port(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return parsed;
}

const program = new Command()
  .name('switchyard')
  .description('A self-hosted, OpenAI-compatible LLM gateway built for reliability')
  .showHelpAfterError();

program
  .command('serve')
  .description('run the gateway')
  .requiredOption('-c, --config <file>', 'config file (YAML)')
  .option('-p, --port <port>', 'listen port (overrides server.port)', port)
  .option('-H, --host <host>', 'listen address (overrides server.host)')
  .action(runServe);

program
  .command('check-config')
  .description('validate a config file; prints every error with its YAML path; exit 1 on error')
  .argument('<file>', 'config file (YAML)')
  .action((file: string) => {
    process.exitCode = runCheckConfig(file);
  });

program
  .command('mock')
  .description('run the built-in fault-injecting mock provider')
  .option('-p, --port <port>', 'listen port', port, 4010)
  .option('-H, --host <host>', 'listen address', '127.0.0.1')
  .action(runMock);

program
  .command('demo')
  .description('start a gateway and mock providers, send sample traffic and show a failover')
  .option('-n, --requests <count>', 'requests per route', (value) => Math.max(1, Math.min(50, Number(value) || 3)), 3)
  .action(runDemo);

const requests = program.command('requests').description('inspect request records through the admin API');
requests
  .command('show')
  .description('print one request and every attempt as a timeline; exit 1 on failure')
  .argument('<id>', 'request id (the x-request-id response header)')
  .option('--url <url>', 'gateway URL', 'http://127.0.0.1:4000')
  .option('--token <token>', 'admin token (default: $SWITCHYARD_ADMIN_TOKEN)')
  .action(async (id: string, options: { url: string; token?: string }) => {
    process.exitCode = await runRequestsShow(id, options);
  });

await program.parseAsync();
