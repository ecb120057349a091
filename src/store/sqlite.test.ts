import { runInFreshProcess } from "../../test/support/fresh-process.js";
import { describe, expect, it } from "vitest";

describe("loadSqlite", () => {
  it("opens databases with the package's own addon, never loading the bindings search", () => {
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
    expect(runInFreshProcess(script)).toEqual({ value: 42, readonly: true, refused: "SQLITE_READONLY", missing: "SqliteError", bindings: false, addon: true });
  });
});
