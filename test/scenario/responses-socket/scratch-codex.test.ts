import { afterAll, beforeAll, expect, it } from 'vitest';
import { locateCodex, runCodex } from '../../support/codex-cli.js';
import { MOCK_CONNECTIONS, startGateway, type TestGateway } from '../../support/start-gateway.js';

const install = locateCodex();
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway(`
${MOCK_CONNECTIONS}
routes:
  coding:
    aliases: ["gpt-*"]
    targets: [{ connection: mock-openai, model: "gpt-coding?tool_call=view_image" }]
`);
});
afterAll(() => gateway.close());

it('codex', async () => {
  if ('missing' in install) throw new Error(install.missing);
  const run = await runCodex(install.launcher, { baseUrl: gateway.url, prompt: 'Look at the diagram and describe it', timeoutMs: 60_000 });
  console.log('exit', run.exitCode, '\nSTDOUT', run.stdout.slice(-1500), '\nSTDERR', run.stderr.slice(-3000));
  await new Promise((r) => setTimeout(r, 300));
  const recs = await gateway.app.records.list({}).catch((e: any) => String(e));
  console.log(JSON.stringify((recs as any[]).map((r:any)=>[r.status,r.transport,r.http_status,r.error_code,r.error_message])));
}, 90_000);
