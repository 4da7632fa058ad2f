/**
 * Child process: a built Switchyard CLI (argv[2], any build's `dist/src/cli/main.js`) run in this
 * process with the rest of argv as its arguments (`serve --config FILE --port P`), so what is
 * measured is exactly what `switchyard serve` runs. The one addition is the bench children's
 * rule: when stdin, a pipe from the bench, closes — the bench went away, even by SIGKILL — the
 * CLI gets the SIGTERM an operator would send.
 */
import { pathToFileURL } from 'node:url';

const [cli, ...cliArgs] = process.argv.slice(2);
if (cli === undefined) {
  process.stderr.write('usage: serve-cli.js CLI_MAIN_JS serve --config FILE --port PORT\n');
  process.exit(2);
}
// The CLI parses process.argv as if it had been started itself.
process.argv = [process.argv[0]!, cli, ...cliArgs];
process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.resume();
await import(pathToFileURL(cli).href);
