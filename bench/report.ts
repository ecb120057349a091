/** The bench's rows and how they are judged and printed (a table for people, JSON for tools). */

export type Status = "ok" | "OVER" | "info" | "not built yet" | "ERROR";

export interface Budget {
  op: "<=" | ">=";
  limit: number;
}

export interface Row {
  /** Stable key for machine readers, e.g. `session-new`. */
  id: string;
  what: string;
  /** The measured figure; absent when not measured. */
  value?: number;
  unit: "ms" | "x" | "MB" | "chunks/s" | "chars";
  budget?: Budget;
  status: Status;
  /** Supporting figures (min, sample count, parts of a difference), or the error message. */
  detail: string;
}

export interface Report {
  node: string;
  cpus: number;
  runs: number;
  rows: Row[];
}

/** A measured row, judged against `budget` when there is one (`info` otherwise). */
export function measured(id: string, what: string, value: number, unit: Row["unit"], detail: string, budget?: Budget): Row {
  const within = budget === undefined ? undefined : budget.op === "<=" ? value <= budget.limit : value >= budget.limit;
  const status: Status = within === undefined ? "info" : within ? "ok" : "OVER";
  return { id, what, value, unit, ...(budget ? { budget } : {}), status, detail };
}


export function failed(id: string, what: string, unit: Row["unit"], error: unknown, budget?: Budget): Row {
  const message = error instanceof Error ? error.message : String(error);
  return { id, what, unit, ...(budget ? { budget } : {}), status: "ERROR", detail: message };
}

export function formatValue(value: number, unit: Row["unit"]): string {
  switch (unit) {
    case "ms":
      return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
    case "x":
      return `${value.toFixed(2)}×`;
    case "MB":
      return `${value.toFixed(1)} MB`;
    case "chunks/s":
      return `${Math.round(value).toLocaleString("en-US")}/s`;
    case "chars":
      return `${Math.round(value).toLocaleString("en-US")} chars`;
  }
}

function formatBudget(budget: Budget | undefined, unit: Row["unit"]): string {
  if (!budget) return "";
  const limit = budget.limit.toLocaleString("en-US");
  const text = unit === "x" ? `${limit}× bare` : unit === "chunks/s" ? `${limit}/s` : `${limit} ${unit}`;
  return `${budget.op === "<=" ? "≤" : "≥"} ${text}`;
}

/** A fixed-width table; each row's detail follows on its own indented line. */
export function formatTable(report: Report): string {
  const header = ["what", "figure", "budget", "status"];
  const cells = report.rows.map((row) => [
    row.what,
    row.value === undefined ? (row.status === "ERROR" ? "—" : "not built yet") : formatValue(row.value, row.unit),
    formatBudget(row.budget, row.unit),
    row.status === "not built yet" ? "" : row.status,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: string[]): string => values.map((value, column) => value.padEnd(widths[column]!)).join("  ").trimEnd();
  const lines = [
    `hermes-acp bench: node ${report.node}, ${report.cpus} CPUs, ${report.runs} start-up runs per command`,
    "",
    line(header),
    line(widths.map((width) => "-".repeat(width))),
  ];
  report.rows.forEach((row, index) => {
    lines.push(line(cells[index]!));
    if (row.detail) lines.push(`    ${row.detail.replace(/\n/g, "\n    ")}`);
  });
  return `${lines.join("\n")}\n`;
}
