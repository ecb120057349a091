import { tryLoadProviderConfig } from "../config/load.js";
import type { HermesConfig } from "../config/schema.js";
import { detectProvider } from "../llm/resolve.js";
import { preloadWireSdk } from "../llm/sdk-preload.js";
import type { ApiMode } from "../llm/types.js";
import { errorMessage } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import { nextTurn } from "../shared/next-turn.js";
import type { Runtime, RuntimeOptions } from "./runtime.js";

/**
 * A Runtime built on first need, for a server that must answer before it needs one (the ACP
 * server's `initialize`): `configuredProvider` reads config.yaml without building it, `load`
 * builds it (the modules behind it — tools, agent, store, MCP — are evaluated then) and answers the
 * same Runtime on every call. `prewarm` does the work the first session and prompt would do, ahead
 * of them, in the idle time after `initialize` was answered.
 */
export class RuntimeLoader {
  private runtime: Runtime | undefined;
  private loading: Promise<Runtime> | undefined;
  private warming = false;

  constructor(private readonly options: RuntimeOptions) {}

  /**
   * The provider config.yaml and the environment resolve to now, undefined when none does or the
   * keys that decide it are broken: `ConfigSource.configuredProvider` without the Runtime (its own
   * once loaded). Before that, only those keys are read (`tryLoadProviderConfig`); a problem in
   * another section is reported once the Runtime reads the whole file.
   */
  configuredProvider(): string | undefined {
    if (this.runtime) return this.runtime.config.configuredProvider();
    return this.detectIn(this.options.env ?? process.env);
  }

  /**
   * `configuredProvider`, and the names of the environment variables it read (`envNames`:
   * undefined when it listed the whole environment, so no list of names decides it). What the
   * launcher's `initialize` cache is keyed on, with config.yaml and .env.
   */
  detectProviderReading(): { provider: string | undefined; envNames: string[] | undefined } {
    const read = new Set<string>();
    let listed = false;
    const env = this.options.env ?? process.env;
    const recording = new Proxy(env, {
      get: (target, name, receiver) => {
        if (typeof name === "string") read.add(name);
        return Reflect.get(target, name, receiver) as unknown;
      },
      has: (target, name) => {
        if (typeof name === "string") read.add(name);
        return Reflect.has(target, name);
      },
      getOwnPropertyDescriptor: (target, name) => {
        if (typeof name === "string") read.add(name);
        return Reflect.getOwnPropertyDescriptor(target, name);
      },
      ownKeys: (target) => {
        listed = true;
        return Reflect.ownKeys(target);
      },
    });
    const provider = this.runtime ? this.runtime.config.configuredProvider() : this.detectIn(recording);
    return { provider, envNames: this.runtime || listed ? undefined : [...read] };
  }

  private detectIn(env: NodeJS.ProcessEnv): string | undefined {
    const loaded = tryLoadProviderConfig(this.options.home);
    return loaded.ok ? detectProvider(loaded.config, env) : undefined;
  }

  /** The Runtime once `load` has built it; undefined before. */
  loaded(): Runtime | undefined {
    return this.runtime;
  }

  /** Builds the Runtime on the first call (later calls share it). Rejects only if its modules fail to load. */
  load(): Promise<Runtime> {
    this.loading ??= import("./runtime.js").then(({ Runtime }) => (this.runtime = new Runtime(this.options)));
    this.loading.catch(() => (this.loading = undefined));
    return this.loading;
  }

  /**
   * Starts, on later event-loop turns, what the first session and prompt need: the Runtime's modules,
   * then the caller's own (`serverModules`, e.g. the ACP request handlers); then, each once
   * `idle()` resolves (the caller's say that no request it defers to is running), the toolsets resolved and their JSON schemas listed (`SessionFactory.warm`), the configured wire
   * API's SDK evaluated, the SQLite driver loaded; nothing when config.yaml is broken. Each step
   * is a separate macrotask, so a request arriving meanwhile waits for one step at most; the first
   * starts after the turn that writes the caller's answer. Does no
   * network I/O, opens no file for writing, never writes to stdout; never throws or rejects
   * (a failure is logged at debug level and left to the request that needs the part). Once per loader.
   */
  prewarm(serverModules?: () => unknown, idle?: () => Promise<void>): void {
    if (this.warming) return;
    this.warming = true;
    const step = (what: string, body: () => unknown, waitForIdle = true): Promise<void> =>
      nextTurn().then(async () => {
        if (waitForIdle && idle) await idle();
        try {
          await body();
        } catch (error) {
          log.debug(`warm-up of ${what} failed: ${errorMessage(error)}`);
        }
      });
    void (async () => {
      // The answer that called this is written by an immediate queued after this call (the
      // stdio writer flushes a turn's frames in one setImmediate): one more turn starts after it.
      await nextTurn();
      await step("the runtime", () => this.load(), false);
      if (serverModules) await step("the server's modules", serverModules, false);
      const runtime = this.runtime;
      if (!runtime) return;
      let config: HermesConfig | undefined;
      await step("config.yaml", () => {
        const loaded = runtime.config.current();
        if (loaded.ok) config = loaded.config;
      });
      if (!config) return;
      const ready = config;
      await step("the tool schemas", () => runtime.sessions.warm(ready));
      let apiMode: ApiMode | undefined;
      await step("the provider", () => {
        if (runtime.config.configuredProvider()) apiMode = runtime.config.resolve(ready).apiMode;
      });
      const mode = apiMode;
      if (mode) await step("the model SDK", () => preloadWireSdk(mode));
      await step("the SQLite driver", () => runtime.warmStore());
    })().catch(() => undefined);
  }
}
