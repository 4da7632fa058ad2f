import type { ConfigSource } from '../config/config-source.js';
import type { Config } from '../config/schema.js';
import { startMockProvider, type MockProvider } from './mock-provider.js';

/**
 * The mock provider behind every `provider: mock` connection without a `base_url`, run in the
 * gateway's process by the commands that start one (`serve`, `demo`). It starts when the config
 * first has such a connection — at start, or on the reload that adds one.
 */
export class InProcessMock {
  #mock: MockProvider | undefined;
  #starting: Promise<MockProvider> | undefined;

  /** Where it listens; undefined until it has started. */
  get url(): string | undefined {
    return this.#mock?.url;
  }

  get provider(): MockProvider | undefined {
    return this.#mock;
  }

  /** Starts it for `source`'s config now, and for every reloaded one; `onError` hears a start that failed. */
  async follow(source: ConfigSource, onError: (error: unknown) => void): Promise<void> {
    source.subscribe((change) => {
      if (change.event === 'reloaded') this.#ensure(change.config).catch(onError);
    });
    await this.#ensure(source.current);
  }

  async close(): Promise<void> {
    await this.#starting?.catch(() => undefined);
    await this.#mock?.close();
  }

  async #ensure(config: Config): Promise<void> {
    const needed = Object.values(config.connections).some((connection) => connection.provider === 'mock' && connection.base_url === undefined);
    if (!needed || this.#starting) return;
    this.#starting = startMockProvider();
    this.#mock = await this.#starting;
  }
}
