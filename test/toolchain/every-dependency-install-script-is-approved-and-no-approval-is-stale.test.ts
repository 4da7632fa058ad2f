import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

/**
 * npm 12 runs a dependency's install script only when `allowScripts` in package.json approves it;
 * an unapproved one is skipped with a warning and the install "succeeds" broken (better-sqlite3
 * never built: the gateway cannot start). This holds the approvals to the lockfile on any npm:
 * a new dependency with an install script fails here until someone reviews it, and an approval
 * whose package no longer has one is removed. (`.ci/run` also installs with --strict-allow-scripts.)
 */
it('allowScripts approves exactly the locked packages that have install scripts', () => {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  const approved = Object.entries(manifest.allowScripts ?? {})
    .filter(([, allowed]) => allowed)
    .map(([name]) => name);
  expect([...new Set(withScripts)].sort()).toEqual(approved.sort());
});
