/**
 * SQL handed to a database client on the command line (`psql -c`, `mysql -e`, `sqlite3 db "…"`,
 * `duckdb -c`, `clickhouse-client --query`) or through a statically known stdin (heredoc,
 * here-string, `echo … |`), and the destructive statements in it.
 */
import { optionValues, parseArgs, type ArgSpec } from "./argv.js";
import type { SimpleCommand } from "./simple-command.js";

interface ClientSpec {
  args: ArgSpec;
  /** Options whose value is SQL. */
  sqlOptions: string[];
  /** Operands after the first (the database) are SQL (sqlite3, duckdb). */
  operandsAreSql?: boolean;
}

const CLIENTS: Record<string, ClientSpec> = {
  psql: {
    args: { shortValue: "cdfhpUvoLTFRP", longValue: ["command", "dbname", "file", "host", "port", "username", "set", "variable", "output", "log-file"] },
    sqlOptions: ["c", "command"],
  },
  mysql: { args: { shortValue: "eDhPuSp", longValue: ["execute", "database", "host", "port", "user", "socket"] }, sqlOptions: ["e", "execute"] },
  mariadb: { args: { shortValue: "eDhPuSp", longValue: ["execute", "database", "host", "port", "user", "socket"] }, sqlOptions: ["e", "execute"] },
  sqlite3: { args: { longValue: ["cmd", "separator", "newline", "nullvalue"] }, sqlOptions: ["cmd"], operandsAreSql: true },
  sqlite: { args: { longValue: ["cmd", "separator", "newline", "nullvalue"] }, sqlOptions: ["cmd"], operandsAreSql: true },
  duckdb: { args: { shortValue: "cs", longValue: ["cmd"] }, sqlOptions: ["c", "s", "cmd"], operandsAreSql: true },
  "clickhouse-client": { args: { shortValue: "qhud", longValue: ["query", "host", "user", "database", "password"] }, sqlOptions: ["q", "query"] },
  mycli: { args: { shortValue: "ehPuSpD", longValue: ["execute", "host", "port", "user", "socket", "database"] }, sqlOptions: ["e", "execute"] },
  pgcli: { args: { shortValue: "hpUdc", longValue: ["host", "port", "username", "dbname", "command"] }, sqlOptions: ["c", "command"] },
  usql: { args: { shortValue: "cfo", longValue: ["command", "file", "out"] }, sqlOptions: ["c", "command"] },
  sqlcmd: { args: { shortValue: "QqSUPd" }, sqlOptions: ["Q", "q"] },
  cqlsh: { args: { shortValue: "euk", longValue: ["execute", "username", "keyspace"] }, sqlOptions: ["e", "execute"] },
  snowsql: { args: { shortValue: "qacudsw", longValue: ["query", "accountname", "config", "username", "dbname", "schemaname", "warehouse"] }, sqlOptions: ["q", "query"] },
};

/** SQL texts the command sends to a database; empty for anything that is not a database client. */
export function sqlTexts(command: SimpleCommand): string[] {
  const spec = Object.hasOwn(CLIENTS, command.name) ? CLIENTS[command.name] : undefined;
  if (!spec) return [];
  // sqlite3 spells its long options with one dash (`-cmd`); accept both.
  const args = command.args.map((arg) => (/^-(?:cmd|separator|newline|nullvalue)$/.test(arg) ? `-${arg}` : arg));
  const parsed = parseArgs(args, spec.args);
  const texts = optionValues(parsed, ...spec.sqlOptions);
  if (spec.operandsAreSql) texts.push(...parsed.operands.slice(1));
  if (command.stdin !== undefined) texts.push(command.stdin);
  return texts;
}

export type SqlFinding = "drop" | "truncate" | "delete_all";

/** Destructive statements in `sql`: DROP TABLE/DATABASE/SCHEMA/KEYSPACE/OWNED, ALTER TABLE … DROP COLUMN, TRUNCATE, DELETE FROM without WHERE. */
export function sqlFindings(sql: string): Set<SqlFinding> {
  const findings = new Set<SqlFinding>();
  const cleaned = sql
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/"(?:[^"]|"")*"/g, '""');
  for (const raw of cleaned.split(";")) {
    const statement = raw.trim().replace(/^(?:begin|start\s+transaction)\b\s*/i, "");
    if (/^drop\s+(?:temporary\s+)?(?:table|database|schema|keyspace|owned)\b/i.test(statement)) findings.add("drop");
    if (/^alter\s+table\s+(?:if\s+exists\s+)?\S+\s+drop\s+(?:column\s+)?(?!constraint\b|index\b|primary\b|foreign\b|default\b|not\b|partition\b|key\b)\S/i.test(statement)) findings.add("drop");
    if (/^truncate\b/i.test(statement)) findings.add("truncate");
    if (/^delete\s+(?:from\s+)?\S/i.test(statement) && !/\bwhere\b/i.test(statement)) findings.add("delete_all");
  }
  return findings;
}
