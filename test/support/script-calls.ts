/**
 * Every Lua script a link sends, by the name it was defined under (`switchyard_gate_admit`,
 * `breakerTransition`, …), with its keys and the error Redis answered, if any: what a cluster
 * test checks that no script was refused for keys in different slots.
 */
import type { Command } from 'ioredis';
import type { RedisLink } from '../../src/state/redis-link.js';

export interface ScriptCall {
  script: string;
  keys: string[];
  /** Set once the call failed. */
  error?: string;
  /** Set once Redis answered it. */
  answered?: true;
}

/** Starts recording the link's script calls; the returned array fills as they are sent. */
export function recordScriptCalls(link: RedisLink): ScriptCall[] {
  const commands = link.commands as unknown as {
    scriptsSet: Record<string, { sha: string; numberOfKeys?: number }>;
    sendCommand(command: Command, ...rest: unknown[]): unknown;
  };
  const calls: ScriptCall[] = [];
  const send = commands.sendCommand.bind(commands);
  commands.sendCommand = (command, ...rest) => {
    // ioredis sends a defined script as EVALSHA (turned into EVAL on the wire the first time).
    if (command.name === 'evalsha') {
      const [sha, keyCount, ...args] = command.args;
      // One Lua may be defined under two names that take different numbers of keys (the gate's admission of a key alone and of a key with its team).
      const script =
        Object.entries(commands.scriptsSet).find(([, defined]) => defined.sha === sha && defined.numberOfKeys === Number(keyCount))?.[0] ?? `unknown script ${String(sha)}`;
      const call: ScriptCall = { script, keys: args.slice(0, Number(keyCount)).map(String) };
      calls.push(call);
      command.promise.then(
        () => (call.answered = true),
        (error: unknown) => (call.error = error instanceof Error ? error.message : String(error)),
      );
    }
    return send(command, ...rest);
  };
  return calls;
}

/** The names of the scripts defined on the link's connection. */
export function definedScripts(link: RedisLink): string[] {
  return Object.keys((link.commands as unknown as { scriptsSet: Record<string, unknown> }).scriptsSet);
}
