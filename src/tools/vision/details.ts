import { z } from "zod";

/** Not lazy: the schemas below extend it, and are themselves built on first use. */
const size = z.object({ width: z.number(), height: z.number() });

/** `details` of a `vision_analyze` call that got an answer. */
export const visionAnswerDetailsSchema = z.lazy(() => z.object({
  /** The file name, `host/path` or `data:image/… image` the call named. */
  source: z.string(),
  kind: z.enum(["url", "data", "file"]),
  /** Absolute path, for a local file. */
  path: z.string().optional(),
  /** The model that answered and its provider. */
  model: z.string(),
  provider: z.string(),
  /** `auxiliary` (auxiliary.vision) or `session` (the session's model). */
  via: z.enum(["auxiliary", "session"]),
  original: size,
  /** What was sent: pixel size, type and bytes (before base64). */
  sent: size.extend({ mimeType: z.string(), bytes: z.number() }),
  crop: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }).optional(),
  /** The start of the answer (at most ANSWER_PREVIEW_CHARS). */
  answer: z.string(),
}));
export type VisionAnswerDetails = z.infer<typeof visionAnswerDetailsSchema>;

/** `details` of a failed `vision_analyze`: what the model was told, and the file when there was one. */
export const visionErrorDetailsSchema = z.lazy(() => z.object({ error: z.string(), source: z.string().optional(), path: z.string().optional() }));

export const visionDetailsSchema = z.lazy(() => z.union([visionAnswerDetailsSchema, visionErrorDetailsSchema]));
export type VisionResultDetails = z.infer<typeof visionDetailsSchema>;

/** Longest start of the answer kept in `details` (the editor shows it whole up to its display cap). */
export const ANSWER_PREVIEW_CHARS = 6_000;
