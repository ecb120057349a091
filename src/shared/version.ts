declare const __HERMES_VERSION__: string | undefined;

/** The package version, injected by the bundler; `0.0.0-dev` when running from source. */
export const VERSION: string = typeof __HERMES_VERSION__ === "string" ? __HERMES_VERSION__ : "0.0.0-dev";
