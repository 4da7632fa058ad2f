import type { ConfigSource, ConfigSourceListener } from '../../src/config/config-source.js';

/**
 * The next reload attempt of the config source that `matches` accepts, or an error after
 * `timeoutMs`. Call it before changing the file: the watcher reloads in the background.
 */
export function configChange(
  configSource: ConfigSource,
  matches: (change: ConfigSourceListener) => boolean,
  timeoutMs = 5_000,
): Promise<ConfigSourceListener> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(new Error(`no matching config reload within ${timeoutMs} ms`));
    }, timeoutMs);
    // ConfigSource has no unsubscribe: a settled wait ignores later changes.
    configSource.subscribe((change) => {
      if (settled || !matches(change)) return;
      settled = true;
      clearTimeout(timer);
      resolve(change);
    });
  });
}
