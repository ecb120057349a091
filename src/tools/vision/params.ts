/** `vision_analyze`'s parameters, shared by the definition (start-up) and its body (first call). */
import { z } from "zod";

export const visionAnalyzeParams = z.object({
  image_url: z.string().describe("Image URL (http/https), local file path, or data: URL to look at."),
  question: z.string().describe("Your question or request about the image."),
  region: z
    .array(z.number())
    .length(4)
    .optional()
    .describe(
      "Optional [x1, y1, x2, y2] crop in ORIGINAL-image pixel coordinates, applied before any downscaling — the crop keeps full resolution. Look at the full image first, then call again with a region to zoom into small text or fine detail.",
    ),
});
export type VisionAnalyzeArgs = z.infer<typeof visionAnalyzeParams>;
