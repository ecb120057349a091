/** `vision_analyze`'s parameters, shared by the definition (start-up) and its body (first call). */
import { z } from "zod";

export const visionAnalyzeParams = z.lazy(() => z.object({
  image_url: z.string().describe("Image URL (http/https), local file path, or data: URL."),
  question: z.string().describe("Your question or request about the image."),
  region: z
    .array(z.number())
    .length(4)
    .optional()
    .describe("[x1, y1, x2, y2] crop in ORIGINAL-image pixels, taken before any downscaling (full resolution): look at the whole image first, then zoom into small text or detail."),
}));
export type VisionAnalyzeArgs = z.infer<typeof visionAnalyzeParams>;
