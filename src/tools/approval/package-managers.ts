/**
 * Package removals: global npm/pnpm/yarn/bun uninstalls, and any uninstall through pip, uv,
 * conda, system package managers (apt, dnf, pacman, apk, brew, …) or language toolchains.
 * Project-local `npm uninstall x` edits package.json only and is not flagged.
 */
import { commandName } from "./argv.js";
import type { SimpleCommand } from "./simple-command.js";

const NODE_REMOVE = new Set(["uninstall", "un", "remove", "rm", "r", "unlink"]);

/** Subcommands that remove packages, per tool. */
const REMOVE_VERBS: Record<string, ReadonlySet<string>> = {
  pip: new Set(["uninstall"]),
  pipx: new Set(["uninstall", "uninstall-all"]),
  conda: new Set(["remove", "uninstall"]),
  mamba: new Set(["remove", "uninstall"]),
  micromamba: new Set(["remove", "uninstall"]),
  apt: new Set(["remove", "purge", "autoremove"]),
  "apt-get": new Set(["remove", "purge", "autoremove"]),
  aptitude: new Set(["remove", "purge"]),
  dnf: new Set(["remove", "erase", "autoremove"]),
  yum: new Set(["remove", "erase", "autoremove"]),
  microdnf: new Set(["remove"]),
  zypper: new Set(["remove", "rm"]),
  apk: new Set(["del"]),
  brew: new Set(["uninstall", "remove", "rm"]),
  port: new Set(["uninstall"]),
  snap: new Set(["remove"]),
  flatpak: new Set(["uninstall", "remove"]),
  gem: new Set(["uninstall"]),
  cargo: new Set(["uninstall"]),
  choco: new Set(["uninstall"]),
  winget: new Set(["uninstall", "remove"]),
  scoop: new Set(["uninstall"]),
};

/** Option flags that make a low-level package tool remove packages. */
const REMOVE_FLAGS: Record<string, RegExp> = {
  pacman: /^(?:-R[a-zA-Z]*|--remove)$/,
  dpkg: /^(?:-[rP]|--remove|--purge)$/,
  rpm: /^(?:-e[a-zA-Z]*|--erase)$/,
  "nix-env": /^(?:-e|--uninstall)$/,
};

export function uninstallsPackages(command: SimpleCommand): boolean {
  let name = command.name;
  let args = command.args;
  if (/^python[0-9.]*$/.test(name) && args[0] === "-m" && args[1] !== undefined) {
    name = commandName(args[1]);
    args = args.slice(2);
  }
  if (/^pip[0-9.]*$/.test(name)) name = "pip";
  const words = args.filter((arg) => !arg.startsWith("-"));
  const [verb = "", next = ""] = words;
  const global = args.some((arg) => arg === "-g" || arg === "--global" || arg === "--location=global");
  switch (name) {
    case "npm":
    case "pnpm":
    case "bun":
      return NODE_REMOVE.has(verb) && global;
    case "yarn":
      return verb === "global" && next === "remove";
    case "uv":
      return (verb === "pip" || verb === "tool") && next === "uninstall";
  }
  const flags = Object.hasOwn(REMOVE_FLAGS, name) ? REMOVE_FLAGS[name] : undefined;
  if (flags) return args.some((arg) => flags.test(arg));
  return Object.hasOwn(REMOVE_VERBS, name) && (REMOVE_VERBS[name]?.has(verb) ?? false);
}
