/** Something a tool keeps per session that must be released when the session ends. */
export interface DisposableState {
  dispose(): void | Promise<void>;
}

/**
 * Per-session state for tools (terminal cwd and env, background processes, read caches, todos),
 * keyed by a symbol each tool owns. The runtime creates one per session and disposes it when the
 * session closes or the process exits; disposal never throws.
 */
export class ToolSessionState {
  private readonly slots = new Map<symbol, unknown>();

  get<T>(key: symbol, create: () => T): T {
    if (!this.slots.has(key)) this.slots.set(key, create());
    return this.slots.get(key) as T;
  }

  peek<T>(key: symbol): T | undefined {
    return this.slots.get(key) as T | undefined;
  }

  async dispose(): Promise<void> {
    const values = [...this.slots.values()];
    this.slots.clear();
    await Promise.allSettled(
      values.map(async (value) => {
        if (value && typeof (value as DisposableState).dispose === "function") await (value as DisposableState).dispose();
      }),
    );
  }
}
