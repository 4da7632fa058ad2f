// `npm start`'s prestart: builds only when dist/ is missing or older than a source, so a second
// start serves at once instead of rebuilding the gateway and the dashboard (docs/dashboard.md, "How the UI is built").
// `npm run build` touches dist/.built when it has finished; anything that went into it — a file
// under src/, bench/ or ui/, a folder there (a file added, renamed or deleted), a manifest or a
// compiler config — changed later means dist/ may be stale.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const STAMP = 'dist/.built';
const SOURCE_DIRS = ['src', 'bench', 'ui'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/** The latest modification time of `path` and, for a folder, of everything under it. */
function newestChange(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, entry)));
  return newest;
}

const built = statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs;
const changed = Math.max(...[...SOURCE_DIRS, ...SOURCE_FILES].map(newestChange));
if (built !== undefined && changed <= built) {
  console.log('dist/ is up to date with the sources: not rebuilding');
} else {
  console.log(built === undefined ? 'dist/ was never built here: building' : 'a source changed since the last build: building');
  const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  process.exitCode = build.status ?? 1;
}
