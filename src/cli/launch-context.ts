/**
 * What dist/launcher.js hands the bundle when it starts it (`start(bin, launch)`): the
 * `initialize` answer cache (scripts/initialize-cache.js) and, when the launcher already read the
 * first input line, how it left stdin. Absent when the bundle runs some other way (tests, tsx).
 */
export interface LaunchContext {
  /** Present when this command line serves ACP. */
  initializeCache?: InitializeCache;
  /** Present when the launcher read stdin's first line before starting the bundle. */
  early?: LauncherEarly;
  /**
   * Present when this command line serves ACP: the launcher holds SIGTERM, SIGINT and SIGHUP from
   * before it reads its cache file (after config.yaml and .env). `release()` stops holding them and returns the first one it held,
   * if any: call it once the server's own handlers are installed, and handle what it returns as
   * if just received.
   */
  signals?: { release(): NodeJS.Signals | undefined };
}

/** The launcher's cache of `initialize` answers. */
export interface InitializeCache {
  /**
   * Records `frame` (the answer line written, with its LF) as the answer to `line` (the request
   * line, without its line end), made from the files of `home` (the $HERMES_HOME the bundle
   * read; a store for another home than the launcher's is refused), given the environment
   * variables that provider detection read. Contract: never throws; returns whether it wrote (false when config.yaml or
   * .env changed since the process started, or the folder cannot be written).
   */
  store(entry: { home: string; line: Uint8Array; frame: string; envNames: readonly string[] }): boolean;
}

/** How the launcher left stdin after reading its first line. */
export interface LauncherEarly {
  /** The id of the `initialize` the launcher answered from its cache (the bundle must not answer it again). */
  answered?: string | number;
  /** What to read instead of process.stdin (the input had already ended: its bytes, then the end). */
  input?: NodeJS.ReadableStream;
  /** Set when writing the cached answer failed (a closed stdout). */
  outputError?: Error;
}
