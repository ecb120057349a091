import { z } from "zod";

/** One search result as the editor lists it. */
export const webSearchRowSchema = z.lazy(() => z.object({ title: z.string(), url: z.string(), description: z.string() }));

/** `details` of a successful `web_search`. */
export const webSearchListingSchema = z.lazy(() => z.object({
  query: z.string(),
  /** The backend's name (`Firecrawl`, `SearXNG`…). */
  backend: z.string(),
  results: z.array(webSearchRowSchema),
}));
export type WebSearchDetails = z.infer<typeof webSearchListingSchema>;

/** `details` of a failed `web_search`: what the model was told. */
export const webSearchErrorSchema = z.lazy(() => z.object({ error: z.string() }));

export const webSearchDetailsSchema = z.lazy(() => z.union([webSearchListingSchema, webSearchErrorSchema]));
export type WebSearchResultDetails = z.infer<typeof webSearchDetailsSchema>;

/** Longest start of a page's returned text kept in `details` (the editor shows less). */
export const PREVIEW_CHARS = 1_500;

/** One page of a `web_extract` call as the editor shows it. */
export const webExtractPageSchema = z.lazy(() => z.object({
  /** The URL asked for, or where it ended up after redirects. */
  url: z.string(),
  title: z.string(),
  /** Characters of text extracted from the page, before any summary. */
  chars: z.number(),
  /** `whole` (short page), `summarized` (by the auxiliary model), `cut` (first 5,000 characters). */
  treatment: z.enum(["whole", "summarized", "cut"]).optional(),
  /** The start of what the model received (at most PREVIEW_CHARS). */
  preview: z.string().optional(),
  error: z.string().optional(),
}));
export type WebExtractPage = z.infer<typeof webExtractPageSchema>;

/** `details` of a `web_extract` call that ran (its pages may still have failed one by one). */
export const webExtractListingSchema = z.lazy(() => z.object({
  /** `direct` (fetched here) or the backend's name. */
  via: z.string(),
  pages: z.array(webExtractPageSchema),
}));
export type WebExtractDetails = z.infer<typeof webExtractListingSchema>;

export const webExtractErrorSchema = z.lazy(() => z.object({ error: z.string() }));

export const webExtractDetailsSchema = z.lazy(() => z.union([webExtractListingSchema, webExtractErrorSchema]));
export type WebExtractResultDetails = z.infer<typeof webExtractDetailsSchema>;
