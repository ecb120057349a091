import { z } from "zod";

/**
 * What the browser tools report to the editor (`details`): small facts about the page and the
 * action, never the page's whole text (the model gets that in `content`). One flat object per
 * tool: `error` is set on a failure (then most other fields are absent); any of them may carry
 * `note` (the browser was restarted, a new tab opened) and the page's `url` / `title`.
 * (Flat rather than success | failure unions: the union of every tool's details is part of the
 * types the whole tool layer is checked against, and has to stay small.)
 */

/** Longest snapshot start kept in details (the editor shows it under the call). */
export const SNAPSHOT_PREVIEW_CHARS = 3_000;
/** Most images listed in details. */
export const IMAGE_DETAILS_MAX = 50;
/** Most console entries of each kind listed in details. */
export const CONSOLE_DETAILS_MAX = 50;

const common = {
  url: z.string().optional(),
  title: z.string().optional(),
  note: z.string().optional(),
  /** The failure the model was told about. */
  error: z.string().optional(),
};

const snapshotFacts = {
  ...common,
  elementCount: z.number().optional(),
  /** The start of the snapshot text the model got. */
  preview: z.string().optional(),
  /** The model's snapshot was cut at 15,000 chars; the whole one is at `storedPath`. */
  truncated: z.boolean().optional(),
  storedPath: z.string().optional(),
};

export const browserNavigateDetailsSchema = z.lazy(() => z.object(snapshotFacts));
export type BrowserNavigateDetails = z.infer<typeof browserNavigateDetailsSchema>;

export const browserSnapshotDetailsSchema = z.lazy(() => z.object({ ...snapshotFacts, full: z.boolean().optional() }));
export type BrowserSnapshotDetails = z.infer<typeof browserSnapshotDetailsSchema>;

/** `ref` as `@eN` (or as the model wrote it, when it was not a ref). */
export const browserClickDetailsSchema = z.lazy(() => z.object({ ...common, ref: z.string().optional() }));
export type BrowserClickDetails = z.infer<typeof browserClickDetailsSchema>;

/** Only how much was typed (`chars`): the text itself may be a password. */
export const browserTypeDetailsSchema = z.lazy(() => z.object({ ...common, ref: z.string().optional(), chars: z.number().optional() }));
export type BrowserTypeDetails = z.infer<typeof browserTypeDetailsSchema>;

export const browserScrollDetailsSchema = z.lazy(() => z.object({ ...common, direction: z.enum(["up", "down"]).optional() }));
export type BrowserScrollDetails = z.infer<typeof browserScrollDetailsSchema>;

export const browserBackDetailsSchema = z.lazy(() => z.object(common));
export type BrowserBackDetails = z.infer<typeof browserBackDetailsSchema>;

export const browserPressDetailsSchema = z.lazy(() => z.object({ ...common, key: z.string().optional() }));
export type BrowserPressDetails = z.infer<typeof browserPressDetailsSchema>;

export const browserImageSchema = z.lazy(() => z.object({ src: z.string(), alt: z.string(), width: z.number(), height: z.number() }));
export type BrowserImage = z.infer<typeof browserImageSchema>;

/** `count` = images on the page; `images` = the first ones of them. */
export const browserGetImagesDetailsSchema = z.lazy(() => z.object({ ...common, count: z.number().optional(), images: z.array(browserImageSchema).optional() }));
export type BrowserGetImagesDetails = z.infer<typeof browserGetImagesDetailsSchema>;

/**
 * `image`: a small JPEG of the viewport for the editor (an ACP image block, base64), when it could
 * be made. `error` set when the screenshot or the vision model failed; the screenshot may exist
 * all the same.
 */
export const browserVisionDetailsSchema = z.lazy(() => z.object({
  ...common,
  question: z.string().optional(),
  analysis: z.string().optional(),
  model: z.string().optional(),
  screenshotPath: z.string().optional(),
  image: z.object({ data: z.string(), mimeType: z.string() }).optional(),
}));
export type BrowserVisionDetails = z.infer<typeof browserVisionDetailsSchema>;

export const consoleEntrySchema = z.lazy(() => z.object({ type: z.string(), text: z.string() }));

/**
 * A console read (`messages`, `errors`, `blocked`, the totals, whether the buffers were cleared),
 * or an evaluation (`expression`, the start of `result`, `resultType`).
 */
export const browserConsoleDetailsSchema = z.lazy(() => z.object({
  ...common,
  messages: z.array(consoleEntrySchema).optional(),
  errors: z.array(z.string()).optional(),
  blocked: z.array(z.object({ url: z.string(), reason: z.string() })).optional(),
  totalMessages: z.number().optional(),
  totalErrors: z.number().optional(),
  cleared: z.boolean().optional(),
  expression: z.string().optional(),
  result: z.string().optional(),
  resultType: z.string().optional(),
}));
export type BrowserConsoleDetails = z.infer<typeof browserConsoleDetailsSchema>;
