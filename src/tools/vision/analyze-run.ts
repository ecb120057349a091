/** The body of `vision_analyze` (see vision-analyze.ts), loaded on its first call. */
import { isAbortError } from "../../shared/abort.js";
import { errorMessage, isHermesError } from "../../shared/errors.js";
import type { ToolContext, ToolResult } from "../types.js";
import { analyzeImage } from "./ask-image.js";
import { ANSWER_PREVIEW_CHARS, type VisionResultDetails } from "./details.js";
import { scaleNote, type ImageRegion } from "./image-prep.js";
import { DEFAULT_DOWNLOAD_TIMEOUT_MS, classifySource, decodeDataPayload, downloadImage, readImageFile, sourceLabel, type ImageSource } from "./image-source.js";
import type { VisionAnalyzeArgs } from "./params.js";

/** Hermes' prompt for the vision model: describe everything, then answer. */
export function visionPrompt(question: string): string {
  return `Fully describe and explain everything about this image, then answer the following question:\n\n${question}`;
}

/** Runs one call; throws only an AbortError (see `visionAnalyzeTool`). */
export async function runVisionAnalyze(args: VisionAnalyzeArgs, ctx: ToolContext): Promise<ToolResult<VisionResultDetails>> {
  const label = sourceLabel(args.image_url);
  let source: ImageSource | undefined;
  try {
    source = classifySource(args.image_url, ctx.cwd);
    const data = await readSource(source, ctx);
    const region = args.region as ImageRegion | undefined;
    const result = await analyzeImage(ctx, data, visionPrompt(args.question), region ? { region } : {});
    const note = scaleNote(result.prepared);
    const { prepared } = result;
    const details: VisionResultDetails = {
      source: label,
      kind: source.kind,
      ...(source.kind === "file" ? { path: source.path } : {}),
      model: result.model,
      provider: result.provider,
      via: result.via,
      original: prepared.original,
      sent: { width: prepared.width, height: prepared.height, mimeType: prepared.mimeType, bytes: prepared.data.length },
      ...(prepared.crop ? { crop: prepared.crop } : {}),
      answer: result.answer.slice(0, ANSWER_PREVIEW_CHARS),
    };
    const body = { success: true, analysis: note ? `[${note}] ${result.answer}` : result.answer, ...(note ? { scale_note: note } : {}) };
    return { content: JSON.stringify(body, null, 2), details };
  } catch (error) {
    if (isAbortError(error) || ctx.signal.aborted) throw error;
    const message = isHermesError(error) ? error.message : `Error analyzing image: ${errorMessage(error)}`;
    const details: VisionResultDetails = { error: message, source: label, ...(source?.kind === "file" ? { path: source.path } : {}) };
    return { content: JSON.stringify({ success: false, error: message }, null, 2), details, isError: true };
  }
}

async function readSource(source: ImageSource, ctx: ToolContext): Promise<Buffer> {
  switch (source.kind) {
    case "data":
      return decodeDataPayload(source.payload);
    case "file":
      return readImageFile(source.path, ctx.hermesHome, ctx.signal);
    case "url": {
      const seconds = Number(ctx.config.auxiliary.vision?.download_timeout);
      const timeoutMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_DOWNLOAD_TIMEOUT_MS;
      return downloadImage(source.url, ctx.config, { signal: ctx.signal, timeoutMs });
    }
  }
}
