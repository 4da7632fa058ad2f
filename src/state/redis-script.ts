import type { RedisLink } from './redis-link.js';

/** A Lua script on the link's command connection: its keys, then its arguments. */
export type RedisScript = (keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

/**
 * Defines `lua` as a command of the link (EVALSHA, falling back to EVAL the first time Redis has
 * not seen it), bounded and failing fast like every call on the link. Scripts are how every shared
 * update stays atomic: Redis runs one to its end before any other command.
 */
export function redisScript(link: RedisLink, name: string, numberOfKeys: number, lua: string): RedisScript {
  const commandName = `switchyard_${name}`;
  link.commands.defineCommand(commandName, { numberOfKeys, lua });
  const command = (link.commands as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>)[commandName];
  if (!command) throw new Error(`Redis script ${name} was not defined`);
  return (keys, args) => command.call(link.commands, ...keys, ...args);
}
