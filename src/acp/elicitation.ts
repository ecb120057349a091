import { methods, type AgentContext, type ClientCapabilities, type CreateElicitationRequest, type ElicitationPropertySchema } from "@agentclientprotocol/sdk/unstable";
import { abortError } from "../shared/abort.js";
import { errorMessage } from "../shared/errors.js";
import { log } from "../shared/logger.js";
import type { ClarifyQuestion, ClarifyReply, ClarifyRequest } from "../tools/ports.js";

/** The choice value that means "the user typed their own answer". */
const OTHER = "__other__";
const OTHER_LABEL = "Other (type your answer)";

/** Whether the editor can show `clarify`'s questions: it advertised form elicitation. */
export function canElicitForms(capabilities: ClientCapabilities | undefined): boolean {
  const form = capabilities?.elicitation?.form;
  return form !== undefined && form !== null;
}

/**
 * The `askUser` port over ACP `elicitation/create` (form mode, scoped to the session and the
 * tool call): one form with a field per question — choices as a single-select enum (or a
 * multi-select array) plus a free-text "Other", open questions as text. Accept → the answers;
 * decline, cancel or an editor failure → "declined" (logged); `signal` → AbortError.
 */
export function elicitationPort(client: AgentContext, sessionId: string): (request: ClarifyRequest, signal: AbortSignal) => Promise<ClarifyReply> {
  return async (request, signal) => {
    const params = {
      mode: "form",
      sessionId,
      toolCallId: request.callId,
      message: request.questions.length === 1 ? request.questions[0]!.question : `The agent has ${request.questions.length} questions for you.`,
      requestedSchema: { type: "object", properties: Object.fromEntries(request.questions.flatMap(fields)) },
    } as CreateElicitationRequest;
    let response;
    try {
      response = await client.request(methods.client.elicitation.create, params, { cancellationSignal: signal, stopWaitingOnCancel: true });
    } catch (error) {
      if (signal.aborted) throw abortError();
      log.warn(`elicitation/create failed: ${errorMessage(error)}`);
      return { outcome: "declined" };
    }
    if (signal.aborted) throw abortError();
    if (response.action !== "accept" || !("content" in response)) return { outcome: "declined" };
    const content = (response.content ?? {}) as Record<string, unknown>;
    return { outcome: "answered", answers: Object.fromEntries(request.questions.map((question) => [question.qid, answerOf(question, content)])) };
  };
}

function fields(question: ClarifyQuestion): Array<[string, ElicitationPropertySchema]> {
  const title = question.question;
  if (!question.choices?.length) return [[question.qid, { type: "string", title }]];
  const options = question.choices.map((label) => ({ const: label, title: label }));
  const other: [string, ElicitationPropertySchema] = [`${question.qid}_other`, { type: "string", title: OTHER_LABEL, description: `Your own answer to: ${title}` }];
  if (question.multiSelect) return [[question.qid, { type: "array", title, items: { anyOf: options } }], other];
  return [[question.qid, { type: "string", title, oneOf: [...options, { const: OTHER, title: OTHER_LABEL }] }], other];
}

/**
 * The user's answer to one question: the picked label(s), with free text for "Other"; "" when left
 * empty. The editor's values are checked against the form that was sent: a pick that is not one
 * of the offered choices (or not text) is ignored, as is anything under a key the form did not have.
 */
function answerOf(question: ClarifyQuestion, content: Record<string, unknown>): string | string[] {
  const value = content[question.qid];
  const other = content[`${question.qid}_other`];
  const typed = typeof other === "string" ? other.trim() : "";
  const choices = question.choices ?? [];
  if (choices.length === 0) {
    if (typeof value === "string" && value.trim()) return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    return "";
  }
  // the "(Recommended)" label is presentation: a pick without it is still that choice
  const bare = (text: string): string => text.trim().replace(/\s*\(recommended\)\s*$/i, "");
  const labels = new Set(choices.map(bare));
  const pick = (item: unknown): string | undefined => {
    const text = typeof item === "string" ? item : typeof item === "number" || typeof item === "boolean" ? String(item) : undefined;
    return text !== undefined && labels.has(bare(text)) ? text : undefined;
  };
  if (question.multiSelect) {
    const picked = [...new Set((Array.isArray(value) ? value : [value]).map(pick).filter((item): item is string => item !== undefined))];
    return typed ? [...picked, typed] : picked;
  }
  return pick(value) ?? typed;
}
