import { homePaths, type HomePaths } from "../config/paths.js";
import { ModelCatalog, type CatalogEntry } from "../llm/catalog.js";
import { loadSqlite } from "../store/sqlite.js";
import { StateStore } from "../store/state-store.js";
import { ConfigSource } from "./config-source.js";
import { ContextLengthCache, contextLengthCacheFile } from "./context-length-cache.js";
import { SessionDirectory } from "./session-directory.js";
import { SessionFactory } from "./session-factory.js";
import type { ModelWindowLookup } from "./session-context.js";

export type { SessionOpenOptions } from "./session-factory.js";
export type { TranscriptEntry } from "./session-directory.js";

export interface RuntimeOptions {
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Context windows from the providers' model lists (a cached catalog), when known. */
  contextWindowLookup?: ModelWindowLookup;
}

/** How long after state.db opens its integrity check starts (off the start-up path; see store/integrity.ts). */
const INTEGRITY_CHECK_DELAY_MS = 3000;

/**
 * The composition root shared by the ACP adapter and the CLI. Its parts: `config` (config.yaml,
 * provider resolution, credentials), `sessions` (building live sessions), `directory` (the stored
 * sessions: the only view of state.db for `acp/` and `cli/`) and the model picker's catalog.
 * Does no I/O until first asked (start-up stays free).
 */
export class Runtime {
  readonly paths: HomePaths;
  readonly config: ConfigSource;
  readonly directory: SessionDirectory;
  readonly sessions: SessionFactory;
  /** The model picker's catalog; live model lists are fetched on first use only, then cached. */
  readonly models = new ModelCatalog();
  private readonly store: StateStore;

  constructor(options: RuntimeOptions) {
    this.paths = homePaths(options.home);
    this.config = new ConfigSource(this.paths, options.env ?? process.env, this.models);
    // state.db opens on first use, never at start-up.
    const store = new StateStore(this.paths.stateDb, { integrityCheckDelayMs: INTEGRITY_CHECK_DELAY_MS });
    this.store = store;
    this.directory = new SessionDirectory(store, this.paths.stateDb);
    const catalog = options.contextWindowLookup ?? ((provider: string, model: string) => this.models.contextLength(provider, model));
    // Windows learned from providers' errors rank above the catalog (config.yaml's context_length above both).
    const learned = new ContextLengthCache(contextLengthCacheFile(this.paths.home));
    const lookup: ModelWindowLookup = (provider, model) => learned.get(provider, model) ?? catalog(provider, model);
    this.sessions = new SessionFactory(this.paths, this.config, store, this.directory, lookup, (provider, model, tokens) => learned.learn(provider, model, tokens));
  }

  /**
   * The model picker's choices (`provider:model`, the configured default first): every configured
   * provider's declared models plus its live `/models` list, fetched now when not cached (each
   * within 1.5 s, once per process). Never called at start-up; never rejects (a broken
   * config.yaml gives []).
   */
  async catalog(): Promise<CatalogEntry[]> {
    const loaded = this.config.current();
    return loaded.ok ? this.models.list(loaded.config, this.config.env) : [];
  }

  /** The picker's choices known without I/O: declared models plus the lists fetched earlier. Never throws. */
  catalogSnapshot(): CatalogEntry[] {
    const loaded = this.config.current();
    return loaded.ok ? this.models.snapshot(loaded.config, this.config.env) : [];
  }

  /**
   * Loads the SQLite driver's JavaScript ahead of the first store call (better-sqlite3 loads its
   * native addon with the first database, so this adds no resident memory to speak of); opens no
   * database (state.db still opens when a session first needs it). Throws if the driver is missing.
   */
  warmStore(): void {
    loadSqlite();
  }

  /**
   * Opens state.db (created and migrated when new) ahead of a session's first turn, which would
   * otherwise pay for it: called once a session exists, never at start-up. Waits for no lock and
   * never throws: a database that cannot be opened now is opened, and its problem reported, by
   * the first turn that needs it, as without this call (`StateStore.prepare`).
   */
  prepareStore(): void {
    this.store.prepare();
  }
}
