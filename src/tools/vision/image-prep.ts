/**
 * Turns image bytes from anywhere (a file, a download, a data: URL, a browser screenshot) into
 * one image a vision model accepts: decoded, turned upright from its EXIF orientation, cropped to
 * the region asked for, scaled down to the limits below and encoded as PNG or JPEG, metadata
 * (EXIF, GPS, ICC comments) dropped.
 *
 * Library: `sharp` (libvips). Measured here (Node 20, linux-x64, 2 cores) against the pure-JS
 * `jimp`: resizing a 4000×3000 image to 2048 px and encoding it took 130–310 ms with sharp and
 * 2.5–3.9 s with jimp; installed, sharp added ~19 MB to node_modules on this platform (its
 * prebuilt libvips arrives as the npm optional dependency `@img/sharp-libvips-<platform>`, only
 * the one matching the machine is installed) and jimp ~34 MB. sharp 0.35 has no install script
 * (nothing is downloaded outside npm at install or run time; a platform without a prebuilt
 * package falls back to `@img/sharp-wasm32` or fails with sharp's own message), and its
 * `engines` is Node ≥ 20.9. It is loaded with `createRequire` on first use — the way the store
 * loads better-sqlite3 — so it stays out of the bundle and out of start-up (its first load takes ~80 ms).
 */
import { createRequire } from "node:module";
import { HermesError } from "../../shared/errors.js";

type SharpFactory = typeof import("sharp").default;
type SharpInstance = ReturnType<SharpFactory>;

/** Longest side sent to a model. OpenAI fits "high" detail into 2048 px; Anthropic scales past ~1568 px itself. */
export const MAX_EDGE_PX = 2048;
/** Most base64 characters of the image sent: Anthropic refuses images over 5 MB (5,242,880) of base64. */
export const MAX_ENCODED_CHARS = 5 * 1024 * 1024;
/** Most pixels of an input image (Hermes' 100-megapixel validation cap); bounds decode memory. */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Smallest side a byte-budget downscale goes to. */
const MIN_EDGE_PX = 64;
/** JPEG qualities tried in turn while an image is over the byte budget. */
const JPEG_LADDER = [85, 70, 50] as const;

/** Input formats accepted (sharp's names): what providers take, plus TIFF, HEIF/AVIF and SVG, re-encoded. */
const INPUT_FORMATS: ReadonlySet<string> = new Set(["jpeg", "png", "webp", "gif", "tiff", "heif", "svg"]);

/** `[x1, y1, x2, y2]` in pixels of the upright (EXIF-rotated) original image, as in Hermes. */
export type ImageRegion = readonly [number, number, number, number];

export interface PreparedImage {
  data: Buffer;
  mimeType: "image/png" | "image/jpeg";
  width: number;
  height: number;
  /** Size of the upright original, before any crop or downscale. */
  original: { width: number; height: number };
  /** The crop applied, in original pixels (clamped to the image). */
  crop?: { x: number; y: number; width: number; height: number };
  /** The input format as sharp names it (`png`, `jpeg`, …). */
  sourceFormat: string;
}

let loaded: SharpFactory | undefined;

/** sharp, loaded on the first call (cache off: nothing is kept between images). Throws when the native module is missing. */
function loadSharp(): SharpFactory {
  if (!loaded) {
    const sharp = createRequire(import.meta.url)("sharp") as SharpFactory;
    sharp.cache(false);
    loaded = sharp;
  }
  return loaded;
}

/**
 * Prepares `input` for a vision model. Throws HermesError `invalid_params` with a message for
 * the model when the bytes are not an image of an accepted format, cannot be decoded, are over
 * MAX_INPUT_PIXELS, or `region` crops to nothing; HermesError `internal` when the image library
 * cannot be loaded. The result is at most MAX_EDGE_PX on its longest side and at most
 * MAX_ENCODED_CHARS once base64-encoded, else this throws (`invalid_params`).
 */
export async function prepareImage(input: Buffer, options: { region?: ImageRegion } = {}): Promise<PreparedImage> {
  let sharp: SharpFactory;
  try {
    sharp = loadSharp();
  } catch (error) {
    throw new HermesError("internal", `The image library (sharp) could not be loaded: ${(error as Error).message}`);
  }
  const open = (): SharpInstance => sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, autoOrient: true });
  let format: string | undefined;
  let width: number;
  let height: number;
  try {
    const meta = await open().metadata();
    format = meta.format;
    width = meta.autoOrient.width;
    height = meta.autoOrient.height;
  } catch (error) {
    throw notAnImage(error);
  }
  if (!format || !INPUT_FORMATS.has(format)) {
    throw new HermesError("invalid_params", `Unsupported image format${format ? ` (${format})` : ""}: use PNG, JPEG, WebP, GIF, TIFF, AVIF or SVG.`);
  }
  if (width * height > MAX_INPUT_PIXELS) {
    throw new HermesError("invalid_params", `Image too large: ${width}x${height} is over ${MAX_INPUT_PIXELS / 1_000_000} megapixels.`);
  }
  const original = { width, height };
  const crop = options.region ? clampRegion(options.region, original) : undefined;
  const area = crop ?? { width, height };
  const scale = Math.min(1, MAX_EDGE_PX / Math.max(area.width, area.height));
  let target = { width: Math.max(1, Math.round(area.width * scale)), height: Math.max(1, Math.round(area.height * scale)) };
  // Lossless sources (screenshots, diagrams) stay PNG so text stays sharp; photos go as JPEG.
  let png = format !== "jpeg" && format !== "heif";
  try {
    // Decode, orient, crop and scale once; every encoding below starts from these pixels.
    let pipeline = open();
    if (crop) pipeline = pipeline.extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height });
    const decoded = await pipeline.resize(target.width, target.height, { fit: "fill", kernel: "lanczos3" }).raw().toBuffer({ resolveWithObject: true });
    const pixels = decoded.data;
    const channels = decoded.info.channels;
    const raw = { width: decoded.info.width, height: decoded.info.height, channels };
    for (;;) {
      const qualities: ReadonlyArray<number | undefined> = png ? [undefined] : JPEG_LADDER;
      for (const quality of qualities) {
        const { data, info } = await encode(sharp(pixels, { raw }), raw, target, quality, channels === 2 || channels === 4);
        if (Math.ceil(data.length / 3) * 4 <= MAX_ENCODED_CHARS) {
          const prepared: PreparedImage = { data, mimeType: quality === undefined ? "image/png" : "image/jpeg", width: info.width, height: info.height, original, sourceFormat: format };
          if (crop) prepared.crop = crop;
          return prepared;
        }
      }
      // Over budget: PNG falls to the JPEG ladder first, then the size halves (to MIN_EDGE_PX).
      if (png) {
        png = false;
        continue;
      }
      if (Math.min(target.width, target.height) <= MIN_EDGE_PX) break;
      const half = Math.max(0.5, MIN_EDGE_PX / Math.min(target.width, target.height));
      target = { width: Math.max(1, Math.round(target.width * half)), height: Math.max(1, Math.round(target.height * half)) };
    }
  } catch (error) {
    if (error instanceof HermesError) throw error;
    throw notAnImage(error);
  }
  throw new HermesError("invalid_params", `Image could not be made smaller than ${MAX_ENCODED_CHARS / (1024 * 1024)} MB for the vision model.`);
}

/** One encoding of decoded pixels at `target` size: PNG when `quality` is undefined, else JPEG (alpha flattened on white). */
async function encode(
  image: SharpInstance,
  size: { width: number; height: number },
  target: { width: number; height: number },
  quality: number | undefined,
  hasAlpha: boolean,
): Promise<{ data: Buffer; info: { width: number; height: number } }> {
  let pipeline = size.width === target.width && size.height === target.height ? image : image.resize(target.width, target.height, { fit: "fill", kernel: "lanczos3" });
  if (quality === undefined) pipeline = pipeline.png({ compressionLevel: 6 });
  else pipeline = (hasAlpha ? pipeline.flatten({ background: "#ffffff" }) : pipeline).jpeg({ quality });
  return pipeline.toBuffer({ resolveWithObject: true });
}

/**
 * `region` clamped to the image, in whole pixels. Throws HermesError `invalid_params` naming the
 * image's size when it is not four finite numbers or leaves no area.
 */
export function clampRegion(region: ImageRegion, size: { width: number; height: number }): { x: number; y: number; width: number; height: number } {
  if (region.length !== 4 || !region.every((value) => Number.isFinite(value))) {
    throw new HermesError("invalid_params", "Invalid region: expected [x1, y1, x2, y2] as four numbers (pixel coordinates in the original image).");
  }
  const [x1, y1, x2, y2] = region.map((value) => Math.trunc(value)) as [number, number, number, number];
  const clamp = (value: number, max: number): number => Math.max(0, Math.min(value, max));
  const left = clamp(x1, size.width);
  const top = clamp(y1, size.height);
  const right = clamp(x2, size.width);
  const bottom = clamp(y2, size.height);
  if (right <= left || bottom <= top) {
    throw new HermesError(
      "invalid_params",
      `Invalid region [${x1}, ${y1}, ${x2}, ${y2}]: it has no area inside the image, which is ${size.width}x${size.height} px — pick x1<x2 and y1<y2 inside [0, 0, ${size.width}, ${size.height}].`,
    );
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/**
 * Hermes' note on how coordinates in the answer map back to the original image, or undefined
 * when the image went as it was.
 */
export function scaleNote(prepared: PreparedImage): string | undefined {
  const parts: string[] = [];
  const area = prepared.crop ?? prepared.original;
  if (area.width !== prepared.width || area.height !== prepared.height) {
    const fx = (area.width / prepared.width).toFixed(2);
    const fy = (area.height / prepared.height).toFixed(2);
    const axes = fx === fy ? `any coordinates you report by ${fx}` : `any x coordinates you report by ${fx} and any y coordinates by ${fy}`;
    parts.push(`Image downscaled from ${area.width}x${area.height} to ${prepared.width}x${prepared.height} for vision; multiply ${axes} to map back to the original image.`);
  }
  if (prepared.crop) {
    parts.push(
      `Analysis was performed on a cropped region of the original image starting at offset (${prepared.crop.x}, ${prepared.crop.y}); coordinates are relative to that crop origin — add the offset to map back to the full image.`,
    );
  }
  return parts.length ? parts.join(" ") : undefined;
}

function notAnImage(error: unknown): HermesError {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  if (/pixel limit/i.test(reason ?? "")) return new HermesError("invalid_params", `Image too large: over ${MAX_INPUT_PIXELS / 1_000_000} megapixels.`);
  return new HermesError("invalid_params", `Not a readable image: ${reason}`);
}
