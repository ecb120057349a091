/**
 * `vision_analyze` (Hermes' `vision` toolset): a question about an image, answered by a model
 * that takes images. This file is what start-up loads (schema, title); the body is
 * `analyze-run.ts`, loaded on the first call, and the image library on the first image.
 */
import { defineTool, type DescribeContext, type ToolDescription } from "../types.js";
import { classifySource, sourceLabel } from "./image-source.js";
import { visionAnalyzeParams, type VisionAnalyzeArgs } from "./params.js";

export type { VisionAnalyzeArgs } from "./params.js";

const DESCRIPTION =
  "Look at an image and answer a question about it: a vision model looks, and you get its answer as text. " +
  "Use it whenever the user references an image (a screenshot, photo, diagram, workspace file or URL), then answer from what it saw. " +
  "Large images are scaled down; use region to zoom in.";

/** Title `vision: <file name or host/path>`; the file's absolute path as location when it is a local file. */
export function describeVisionAnalyze(args: VisionAnalyzeArgs, ctx: DescribeContext): ToolDescription {
  const label = sourceLabel(args.image_url ?? "");
  const title = label ? `vision: ${label}` : "vision";
  try {
    const source = classifySource(args.image_url, ctx.cwd);
    return { title, locations: source.kind === "file" ? [{ path: source.path }] : [] };
  } catch {
    return { title, locations: [] };
  }
}

/**
 * vision_analyze. Never throws for anything the model can fix: a refused or unreadable source,
 * an image that does not decode, a text-only model or a failed request is an `isError` result
 * `{"success": false, "error": …}`; an answer is `{"success": true, "analysis": …}` (Hermes'
 * shape, the coordinate note first when the image was scaled or cropped). Only cancellation
 * (an AbortError) is thrown.
 */
export const visionAnalyzeTool = defineTool({
  name: "vision_analyze",
  description: DESCRIPTION,
  kind: "read",
  mutating: false,
  params: visionAnalyzeParams,
  describe: describeVisionAnalyze,
  async execute(args, ctx) {
    const { runVisionAnalyze } = await import("./analyze-run.js");
    return runVisionAnalyze(args, ctx);
  },
});
