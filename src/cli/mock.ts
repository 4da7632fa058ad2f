import { startMockProvider } from '../mock/mock-provider.js';

export async function runMock(options: { port: number; host: string; rejectKey: string[] }): Promise<void> {
  const mock = await startMockProvider({ port: options.port, host: options.host, log: true, rejectedKeys: options.rejectKey });
  console.log(`mock provider listening on ${mock.url}`);
  console.log(`  OpenAI dialect:    base_url ${mock.url}/v1`);
  console.log(`  Anthropic dialect: base_url ${mock.url}`);
  console.log(`  Gemini dialect:    base_url ${mock.url}/v1beta`);
  console.log(`  Bedrock dialect:   base_url ${mock.url}`);
  if (options.rejectKey.length > 0) console.log(`  rejecting ${options.rejectKey.length} key(s) with each dialect's credential error`);
  console.log('  faults: put directives in the model name, e.g. "gpt-mock?status=503&retry_after=2" (see docs/mock.md)');
  const stop = () => void mock.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
