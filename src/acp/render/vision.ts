import type { VisionAnswerDetails } from "../../tools/vision/details.js";
import { errorText, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolRenderer } from "./types.js";

/** Longest question shown while the call runs. */
const MAX_QUESTION = 300;

/**
 * `vision_analyze` in the editor. Start: the question (≤ 300 chars). Completion: one line naming
 * the model that answered (and whether it is the auxiliary vision model or the session's), the
 * image's size as sent (and as it was, and the crop), then the answer as written; 7,000 chars at
 * most. Failures show the error; calls without details their text.
 */
export const visionAnalyzeRenderer: ToolRenderer<"vision_analyze"> = {
  start(event) {
    const question = event.input?.question?.replace(/\s+/g, " ").trim();
    if (!question) return [];
    return [textContent(`Question: ${question.length > MAX_QUESTION ? `${question.slice(0, MAX_QUESTION - 1)}…` : question}`)];
  },
  complete(event) {
    const details = event.details;
    if (event.isError || (details && "error" in details)) {
      const error = details && "error" in details ? details.error : errorText(event.content);
      return { content: [textContent(truncate(`Vision failed: ${error}`))], failed: true };
    }
    if (!details) return { content: event.content ? [textContent(truncate(event.content))] : [] };
    return { content: [textContent(truncate(`${summary(details)}\n\n${details.answer}`, DISPLAY_LIMIT_LARGE))] };
  },
};

function summary(details: VisionAnswerDetails): string {
  const who = details.via === "auxiliary" ? `${details.model} (auxiliary vision model)` : `${details.model} (session model)`;
  const sent = `${details.sent.width}×${details.sent.height} ${details.sent.mimeType.replace("image/", "").toUpperCase()}, ${kilobytes(details.sent.bytes)}`;
  const parts = [`Answer from ${who}`, `image sent at ${sent}`];
  const { original, crop } = details;
  if (crop) parts.push(`crop ${crop.width}×${crop.height} at (${crop.x}, ${crop.y}) of ${original.width}×${original.height}`);
  else if (original.width !== details.sent.width || original.height !== details.sent.height) parts.push(`scaled from ${original.width}×${original.height}`);
  return parts.join(" · ");
}

function kilobytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
