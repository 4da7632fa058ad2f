import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseSpillName } from '../../src/sinks/spill-directory.js';
import { readItems } from '../../src/sinks/spill-file.js';
import type { SpillKind } from '../../src/sinks/spill-file.js';

/** Every item of `kind` waiting in the spill files of any process in `directory` (files named `<prefix>.spill-…`). */
export function spilledItems<T>(directory: string, prefix: string, kind: SpillKind): T[] {
  return spillFileNames(directory, prefix)
    .filter((name) => {
      const parsed = parseSpillName(name, prefix);
      return parsed?.lock === false && parsed.kind === kind;
    })
    .flatMap((name) => readItems<T>(join(directory, name)));
}

/** The spill files and locks in `directory`, of any process. */
export function spillFileNames(directory: string, prefix: string): string[] {
  return readdirSync(directory).filter((name) => parseSpillName(name, prefix) !== undefined);
}
