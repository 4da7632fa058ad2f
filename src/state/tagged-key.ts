/**
 * The keys of one virtual key (`gate:{id}:…`) and of one deployment (`health:{connection/model}:…`)
 * carry its id as their hash tag: Redis Cluster places a key by the part between its first `{`
 * and the next `}`, so they share a slot and a script may take any of them together. The layout
 * is the same on one Redis, where the braces change nothing.
 *
 * `link.key` prepends the configured prefix, which on a cluster holds no braces: the tag's `{` is
 * the key's first.
 */
export function taggedKey(link: { key(name: string): string }, family: 'gate' | 'health', id: string, part: string): string {
  return link.key(`${family}:${hashTag(id)}:${part}`);
}

/**
 * `{id}`. Keys of one tag share everything up to it, so an id holding braces still gives them all
 * the same tag; only an empty tag would not count (Redis then hashes each whole key): an id that
 * would leave it empty gets a character in front.
 */
function hashTag(id: string): string {
  return id === '' || id.startsWith('}') ? `{_${id}}` : `{${id}}`;
}
