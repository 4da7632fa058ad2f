import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

it('switchyard --version prints the version of the package it was built from', async () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const { code, stdout, stderr } = await runCli(['--version']);
  expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
});
