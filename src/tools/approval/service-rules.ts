/**
 * State held by a service rather than in files: databases (non-SQL clients and framework tasks;
 * SQL statements are in `sql.ts`) and the user's crontab. A client running inside the sandbox
 * still changes them over a socket or the network, so these ask in both modes.
 */
import { commandName, optionValues, parseArgs, positionalArgs } from "./argv.js";
import type { CommandRule, SimpleCommand } from "./simple-command.js";

const REDIS_CLIENTS = new Set(["redis-cli", "valkey-cli", "keydb-cli"]);
const REDIS_VALUE = /^(?:-[hpsanuri]|--(?:user|pass|askpass|cacert|cacertdir|cert|key|sni|tls-ciphers|tls-ciphersuites))$/;
const REDIS_FLUSH = /^flush(?:all|db)$/i;
const MONGO_DROP = /\.dropDatabase\s*\(|\.drop\s*\(\s*\)|\.(?:deleteMany|remove)\s*\(\s*(?:\{\s*\})?\s*\)/;

/** Framework and migration tasks that drop or wipe a database, by tool; tested against the joined arguments. */
const DB_TASKS: Record<string, RegExp> = {
  rails: /(?:^| )db:(?:drop|reset|purge|truncate_all|schema:load|structure:load|migrate:reset)\b/,
  rake: /(?:^| )db:(?:drop|reset|purge|truncate_all|schema:load|structure:load|migrate:reset)\b/,
  artisan: /^(?:migrate:(?:fresh|reset|refresh)|db:wipe)\b/,
  console: /^doctrine:(?:database|schema):drop\b/,
  prisma: /^(?:migrate reset|db push(?: \S+)* --force-reset)\b/,
  sequelize: /^db:drop\b/,
  "sequelize-cli": /^db:drop\b/,
  typeorm: /(?:^| )schema:drop\b/,
  supabase: /^db reset\b/,
  flyway: /(?:^| )clean\b/,
  liquibase: /(?:^| )(?:dropAll|drop-all)\b/,
  mix: /^ecto\.(?:drop|reset)\b/,
  dotnet: /^ef database drop\b/,
  "django-admin": /^(?:flush|reset_db)\b/,
  "manage.py": /^(?:flush|reset_db)\b/,
  alembic: /(?:^| )downgrade base\b/,
};

/** `python manage.py flush` → `manage.py flush`; `php artisan x` → `artisan x`; `php bin/console x` → `console x`. */
function taskTool(command: SimpleCommand): { tool: string; args: string[] } {
  const { name, args } = command;
  const script = args[0] === undefined ? "" : commandName(args[0]);
  if (/^python[0-9.]*$/.test(name) && script === "manage.py") return { tool: script, args: args.slice(1) };
  if (/^php[0-9.]*$/.test(name) && (script === "artisan" || script === "console")) return { tool: script, args: args.slice(1) };
  return { tool: name, args };
}

/** `dropdb`, `mysqladmin drop`, `redis-cli FLUSHALL`, `mongosh --eval 'db.dropDatabase()'`, `rails db:drop`, `prisma migrate reset`, … */
function dropsDatabase(command: SimpleCommand): boolean {
  const { name, args } = command;
  if (name === "dropdb") return !args.some((arg) => /^(?:--help|-\?|-V|--version)$/.test(arg));
  if (name === "mysqladmin" || name === "mariadb-admin") return positionalArgs(args, /^-[uhPS]$/).some((word) => word.toLowerCase() === "drop");
  if (REDIS_CLIENTS.has(name)) {
    return positionalArgs(args, REDIS_VALUE).some((word) => REDIS_FLUSH.test(word)) || /^\s*flush(?:all|db)\b/im.test(command.stdin ?? "");
  }
  if (name === "mongo" || name === "mongosh") {
    const scripts = optionValues(parseArgs(args, { longValue: ["eval", "host", "port", "username", "password", "authenticationDatabase"] }), "eval");
    return [...scripts, command.stdin ?? ""].some((script) => MONGO_DROP.test(script));
  }
  const task = taskTool(command);
  const pattern = Object.hasOwn(DB_TASKS, task.tool) ? DB_TASKS[task.tool] : undefined;
  return pattern?.test(task.args.join(" ")) ?? false;
}

/** `crontab -r`, and every form that installs a new crontab (`crontab file`, `crontab -`, `… | crontab`); `-l` and `-e` do not. */
function replacesCrontab({ name, args }: SimpleCommand): boolean {
  if (name !== "crontab") return false;
  const parsed = parseArgs(args, { shortValue: "uc" });
  if (parsed.shorts.has("r")) return true;
  return !["l", "e", "T", "V"].some((letter) => parsed.shorts.has(letter)) && !parsed.longs.has("help") && !parsed.longs.has("version");
}

export const SERVICE_RULES: readonly CommandRule[] = [
  { key: "db_drop", description: "drop or wipe a database (dropdb, FLUSHALL, dropDatabase, db:drop)", matches: dropsDatabase },
  { key: "crontab_replace", description: "remove or replace the crontab", matches: replacesCrontab },
];
