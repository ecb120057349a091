/**
 * Asks a model one question about one image: the shared core of `vision_analyze` and
 * `browser_vision`. The image is prepared (`image-prep.ts`) and sent in a side request through
 * `ctx.ports.auxiliaryModel` (task `vision`): to `auxiliary.vision` when config.yaml names a
 * model there, else to the session's current model — which must take images.
 */
import { abortError, isAbortError } from "../../shared/abort.js";
import { HermesError, errorMessage } from "../../shared/errors.js";
import type { ToolContext } from "../types.js";
import { modelTakesImages } from "./capability.js";
import { prepareImage, type ImageRegion, type PreparedImage } from "./image-prep.js";

/** Most tokens of the model's answer. */
export const VISION_MAX_TOKENS = 4096;
/** How long the model may take to answer, unless `auxiliary.vision.timeout` (seconds) says otherwise (Hermes' default). */
export const DEFAULT_VISION_TIMEOUT_MS = 120_000;

export interface ImageAnswer {
  /** The model's answer, `<think>` blocks left out. */
  answer: string;
  /** The model that answered. */
  model: string;
  provider: string;
  /** `auxiliary` when `auxiliary.vision` named the model, `session` when the session's model answered. */
  via: "auxiliary" | "session";
  /** What was sent (size, type), and the original's size and crop. */
  prepared: PreparedImage;
}

/**
 * Resizes `image` to the provider limits and asks `question` about it (sent as written: callers
 * word their own prompt). Resolves with the answer and the model that gave it. Throws HermesError
 * with a message for the model when no model can look at images (no port; the session's model
 * is text-only and `auxiliary.vision` names none; `auxiliary.vision` cannot be resolved), when the
 * image cannot be decoded (`invalid_params`), or when the request fails, times out or returns
 * nothing (`provider_error`); an AbortError when `ctx.signal` fires. `image.mimeType` is a hint
 * only: the format is read from the bytes.
 */
export async function askAboutImage(ctx: ToolContext, image: { data: Buffer; mimeType: string }, question: string): Promise<{ answer: string; model: string }> {
  const { answer, model } = await analyzeImage(ctx, image.data, question);
  return { answer, model };
}

/** askAboutImage with an optional crop, and everything about the request in the result. Same errors. */
export async function analyzeImage(ctx: ToolContext, data: Buffer, question: string, options: { region?: ImageRegion } = {}): Promise<ImageAnswer> {
  const port = ctx.ports.auxiliaryModel;
  if (!port) throw new HermesError("invalid_params", "No model is available to look at images in this session.");
  const target = port.describe("vision");
  if (!target) throw new HermesError("config_invalid", "auxiliary.vision in config.yaml names a model that cannot be resolved; fix it or remove it.");
  if (!target.configured && !modelTakesImages(target.model, ctx.config)) {
    throw new HermesError(
      "invalid_params",
      `The session model ${target.model} does not take images; set auxiliary.vision.model in config.yaml to a model that does (or model.supports_vision: true if this one does).`,
    );
  }
  if (ctx.signal.aborted) throw abortError();
  const prepared = await prepareImage(data, options.region ? { region: options.region } : {});
  if (ctx.signal.aborted) throw abortError();
  const url = `data:${prepared.mimeType};base64,${prepared.data.toString("base64")}`;
  const timeoutMs = visionTimeoutMs(ctx.config.auxiliary.vision);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  const ask = (): Promise<string> =>
    port.complete("vision", [{ role: "user", content: [{ type: "text", text: question }, { type: "image_url", image_url: { url } }] }], { signal, maxTokens: VISION_MAX_TOKENS });
  let answer: string;
  try {
    answer = (await ask()).trim();
    // Hermes asks once more when a model answers with reasoning only.
    if (!answer) answer = (await ask()).trim();
  } catch (error) {
    if (ctx.signal.aborted) throw abortError();
    if (timeout.aborted) throw new HermesError("provider_error", `The vision model ${target.model} did not answer within ${Math.round(timeoutMs / 1000)} s.`);
    if (isAbortError(error)) throw error;
    throw new HermesError("provider_error", failureMessage(target.model, error));
  }
  if (!answer) throw new HermesError("provider_error", `The vision model ${target.model} returned no answer for the image.`);
  return { answer, model: target.model, provider: target.provider, via: target.configured ? "auxiliary" : "session", prepared };
}

/** `auxiliary.vision.timeout` in milliseconds when it is a positive number of seconds, else the default. */
function visionTimeoutMs(settings: Record<string, unknown> | undefined): number {
  const seconds = Number(settings?.timeout);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_VISION_TIMEOUT_MS;
}

/** The failure as the model should read it, with Hermes' hints for the usual causes. */
function failureMessage(model: string, error: unknown): string {
  const message = errorMessage(error);
  const lower = message.toLowerCase();
  if (/(402|insufficient|payment required|credits|billing)/.test(lower)) {
    return `Insufficient credits or payment required for the vision model ${model}. Error: ${message}`;
  }
  if (/(does not support|not support image|multimodal|image input|unrecognized request argument)/.test(lower)) {
    return `${model} does not support vision or the request was not accepted by the server. Error: ${message}`;
  }
  if (/(invalid_request|image_url|too large|413)/.test(lower)) {
    return `The vision API rejected the image (unsupported format, corrupted, or too large). Try a smaller PNG or JPEG. Error: ${message}`;
  }
  return `The vision model ${model} failed: ${message}`;
}
