import { z } from "zod";
import { isAbortError } from "../../shared/abort.js";
import type { ClarifyQuestion } from "../ports.js";
import { defineTool, type ToolContext, type ToolResult } from "../types.js";

/** Hermes' limits: at most 4 offered choices (the editor adds "Other"), at most 5 questions at once. */
export const MAX_CHOICES = 4;
export const MAX_QUESTIONS = 5;
export const RECOMMENDED_LABEL = "(Recommended)";
/** The longest delay a Node timer takes. */
const MAX_TIMER_MS = 2_147_483_647;
/** Characters of one answer the model gets (an editor may send any amount). */
export const MAX_ANSWER_CHARS = 10_000;
/** What the model is told when nobody answered in time (Hermes' wording). */
export const TIMEOUT_RESPONSE = "The user did not provide a response within the time limit. Use your best judgement to make the choice and proceed.";
const DECLINED_RESPONSE = "The user dismissed the question without answering. Use your best judgement to make the choice and proceed.";

const choice = z.lazy(() => z.union([z.string(), z.record(z.string(), z.unknown())]));
const clarifyParams = z.lazy(() => z.object({
  question: z.string().optional().describe("The question to ask the user"),
  choices: z.array(choice).optional().describe(`Up to ${MAX_CHOICES} answers, best first (the first is shown as recommended); omit for an open question.`),
  multi_select: z.boolean().optional().describe("Let the user pick several choices (the answer is a list)"),
  questions: z
    .array(z.union([z.string(), z.object({ id: z.string().optional(), question: z.string(), choices: z.array(choice).optional(), multi_select: z.boolean().optional() })]))
    .optional()
    .describe(`Up to ${MAX_QUESTIONS} independent questions asked together; replaces question/choices/multi_select`),
}));
export type ClarifyArgs = z.infer<typeof clarifyParams>;

interface Normalized extends ClarifyQuestion {
  id?: string;
  offered: string[] | null;
}

/**
 * `clarify`: asks the user through the editor (ACP form elicitation) and returns Hermes' result
 * JSON — `{question, choices_offered, user_response}`, or `{responses: […], timed_out?}` for a
 * batch. No answer within `approvals.timeout`, or a dismissed form, returns "use your best
 * judgement" instead of failing. Offered only to editors that can show forms.
 */
export const clarifyTool = defineTool({
  name: "clarify",
  description:
    "Ask the user a clarifying question when the request is ambiguous and a wrong guess would waste real work. Offer up to 4 likely answers, best first; the user can always type their own. Do not ask about things you can find out with your tools, and do not ask for permission to do what was requested.",
  kind: "other",
  mutating: false,
  params: clarifyParams,
  describe: (args) => ({ title: `clarify: ${oneLine(args.questions?.length ? `${args.questions.length} questions` : (args.question ?? ""))}`, locations: [] }),
  async execute(args, ctx): Promise<ToolResult> {
    const normalized = normalize(args);
    if (typeof normalized === "string") return { content: JSON.stringify({ error: normalized }), isError: true };
    const ask = ctx.ports.askUser;
    if (!ask) return { content: JSON.stringify({ error: "clarify is not available: the editor cannot show questions." }), isError: true };
    const reply = await askWithTimeout(ctx, normalized);
    if (reply === "cancelled") return { content: JSON.stringify({ error: "Cancelled by the user." }), isError: true };
    const answers = reply === "timeout" || reply.outcome === "declined" ? undefined : reply.answers;
    const blank = reply === "timeout" ? TIMEOUT_RESPONSE : DECLINED_RESPONSE;
    if (!args.questions?.length) {
      const only = normalized[0]!;
      const answer = answers?.[only.qid];
      return { content: JSON.stringify({ question: only.question, choices_offered: only.offered, user_response: answer === undefined || answer === "" ? blank : clean(answer, only) }) };
    }
    const responses = normalized.map((entry) => {
      const answer = answers?.[entry.qid];
      return { ...(entry.id ? { id: entry.id } : {}), question: entry.question, choices_offered: entry.offered, user_response: answer === undefined || answer === "" ? "" : clean(answer, entry) };
    });
    return { content: JSON.stringify({ responses, ...(answers ? {} : { timed_out: true, note: blank }) }) };
  },
});

async function askWithTimeout(ctx: ToolContext, questions: Normalized[]) {
  // past 2^31-1 ms a timer fires at once (and past 2^32-1 AbortSignal.timeout throws): "very long" means the longest there is
  const timeout = AbortSignal.timeout(Math.min(Math.max(1, ctx.config.approvals.timeout) * 1000, MAX_TIMER_MS));
  const signal = AbortSignal.any([ctx.signal, timeout]);
  try {
    return await ctx.ports.askUser!({ callId: ctx.callId, questions: questions.map(({ qid, question, choices, multiSelect }) => ({ qid, question, multiSelect, ...(choices ? { choices } : {}) })) }, signal);
  } catch (error) {
    if (ctx.signal.aborted) return "cancelled" as const;
    if (timeout.aborted || isAbortError(error)) return "timeout" as const;
    return { outcome: "declined" as const };
  }
}

/** The questions of `args`, validated (Hermes' rules), or why they cannot be asked. */
export function normalize(args: ClarifyArgs): Normalized[] | string {
  const items = args.questions?.length ? args.questions : [{ question: args.question ?? "", choices: args.choices, multi_select: args.multi_select }];
  if (items.length > MAX_QUESTIONS) return `questions supports at most ${MAX_QUESTIONS} items.`;
  const out: Normalized[] = [];
  for (const [index, raw] of items.entries()) {
    const item = typeof raw === "string" ? { question: raw } : raw;
    const question = item.question?.trim() ?? "";
    if (!question) return args.questions?.length ? `questions[${index}].question must be non-empty text.` : "question is required.";
    const offered = (item.choices ?? []).map(flatten).filter(Boolean).slice(0, MAX_CHOICES);
    const choices = offered.length ? recommend(offered) : undefined;
    out.push({
      qid: `q${index}`,
      ...("id" in item && item.id?.trim() ? { id: item.id.trim() } : {}),
      question,
      ...(choices ? { choices } : {}),
      offered: offered.length ? offered : null,
      multiSelect: Boolean(item.multi_select) && offered.length > 0,
    });
  }
  return out;
}

/** A choice as text: models sometimes send `{label: …}` objects or JSON strings of them. */
function flatten(value: string | Record<string, unknown>): string {
  if (typeof value === "string") {
    const text = value.trim();
    if (text.startsWith("{") && text.endsWith("}")) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return flatten(parsed as Record<string, unknown>);
      } catch {
        // plain text that happens to be braced
      }
    }
    return text;
  }
  for (const key of ["label", "description", "text", "title"]) {
    const field = value[key];
    if (typeof field === "string" && field.trim()) return field.trim();
  }
  return "";
}

function recommend(choices: string[]): string[] {
  if (choices.length < 2 || /\(recommended\)\s*$/i.test(choices[0]!)) return choices;
  return [`${choices[0]} ${RECOMMENDED_LABEL}`, ...choices.slice(1)];
}

/** The answer without presentation: the "(Recommended)" label dropped, each text cut at `MAX_ANSWER_CHARS`. */
function clean(answer: string | string[], entry: Normalized): string | string[] {
  const strip = (text: string): string => capped(text.trim().replace(/\s*\(recommended\)\s*$/i, ""));
  if (Array.isArray(answer)) return answer.map(strip).filter(Boolean);
  return entry.multiSelect ? [strip(answer)] : strip(answer);
}

function capped(text: string): string {
  return text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}\n[… cut: the answer was longer than ${MAX_ANSWER_CHARS} characters]` : text;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
