import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runInFreshProcess } from "../../test/support/fresh-process.js";
import { releaseAddon } from "./sqlite.js";

describe("loadSqlite", () => {
  it("opens, reads, writes and refuses as the driver does, loading its addon without the bindings search where the install's build/Release file is the answer", () => {
    // In a fresh process: the module cache shows what the first open loaded.
    const script = [
      "import { createRequire } from 'node:module';",
      "import { mkdtempSync, rmSync } from 'node:fs';",
      "import { tmpdir } from 'node:os';",
      "import { join } from 'node:path';",
      "import { loadSqlite } from './src/store/sqlite.ts';",
      "const dir = mkdtempSync(join(tmpdir(), 'hermes-sqlite-'));",
      "const Sqlite = loadSqlite();",
      "const db = new Sqlite(join(dir, 'a.db'));",
      "db.exec('CREATE TABLE t (x)');",
      "db.prepare('INSERT INTO t VALUES (?)').run(42);",
      "const value = db.prepare('SELECT x FROM t').pluck().get();",
      "db.close();",
      "const again = new Sqlite(join(dir, 'a.db'), { readonly: true, fileMustExist: true });",
      "const readonly = again.readonly;",
      "let refused = '';",
      "try { again.exec('INSERT INTO t VALUES (1)'); } catch (error) { refused = error.code; }",
      "again.close();",
      "let missing = '';",
      "try { new Sqlite(join(dir, 'none.db'), { fileMustExist: true }); } catch (error) { missing = error.constructor.name; }",
      "rmSync(dir, { recursive: true });",
      "const loaded = Object.keys(createRequire(import.meta.url).cache);",
      "console.log(JSON.stringify({ value, readonly, refused, missing, bindings: loaded.some((file) => file.includes('/node_modules/bindings/')), addon: loaded.some((file) => file.endsWith('better_sqlite3.node')) }));",
    ].join("\n");
    // The search is skipped only where its answer is known: the install's own build/Release file.
    const named = releaseAddon(join(dirname(createRequire(import.meta.url).resolve("better-sqlite3")), "..")) !== undefined;
    expect(runInFreshProcess(script)).toEqual({ value: 42, readonly: true, refused: "SQLITE_READONLY", missing: "SqliteError", bindings: !named, addon: true });
  });

  it("names the build/Release addon only when it is the file the bindings search would load first", () => {
    const root = mkdtempSync(join(tmpdir(), "hermes-addon-"));
    try {
      const place = (...parts: string[]): string => {
        mkdirSync(join(root, ...parts.slice(0, -1)), { recursive: true });
        writeFileSync(join(root, ...parts), "");
        return join(root, ...parts);
      };
      expect(releaseAddon(root)).toBeUndefined();
      const release = place("build", "Release", "better_sqlite3.node");
      expect(releaseAddon(root)).toBe(release);
      place("build", "Debug", "better_sqlite3.node");
      expect(releaseAddon(root)).toBeUndefined();
      rmSync(join(root, "build", "Debug"), { recursive: true });
      place("build", "better_sqlite3.node");
      expect(releaseAddon(root)).toBeUndefined();
      rmSync(join(root, "build", "better_sqlite3.node"));
      place("lib", "binding", "node-v115-linux-x64", "better_sqlite3.node");
      expect(releaseAddon(root)).toBe(release);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
