import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { HermesError } from "../../shared/errors.js";
import { MAX_EDGE_PX, MAX_ENCODED_CHARS, clampRegion, prepareImage, scaleNote } from "./image-prep.js";

type Rgb = [number, number, number];
const RED: Rgb = [255, 0, 0];
const BLUE: Rgb = [0, 0, 255];
const GREEN: Rgb = [0, 255, 0];
const WHITE: Rgb = [255, 255, 255];

/** Raw RGB pixels of `width`×`height`, each from `color(x, y)`. */
function pixels(width: number, height: number, color: (x: number, y: number) => Rgb): Buffer {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set(color(x, y), (y * width + x) * 3);
  }
  return raw;
}

const image = (width: number, height: number, color: (x: number, y: number) => Rgb) => sharp(pixels(width, height, color), { raw: { width, height, channels: 3 } });

/** The colour at (x, y) of an encoded image. */
async function colorAt(data: Buffer, x: number, y: number): Promise<Rgb> {
  const { data: raw, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [raw[at]!, raw[at + 1]!, raw[at + 2]!];
}

const near = (actual: Rgb, expected: Rgb): boolean => actual.every((value, index) => Math.abs(value - expected[index]!) < 40);

const dir = mkdtempSync(join(tmpdir(), "vision-prep-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("prepareImage", () => {
  it("scales a large PNG down to the longest-edge limit, keeping it PNG and its aspect ratio", async () => {
    const png = await image(3000, 2000, (x) => (x < 1500 ? RED : BLUE)).png().toBuffer();
    const prepared = await prepareImage(png);
    expect(prepared).toMatchObject({ mimeType: "image/png", width: MAX_EDGE_PX, height: 1365, original: { width: 3000, height: 2000 }, sourceFormat: "png" });
    const meta = await sharp(prepared.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 2048, 1365]);
    expect(near(await colorAt(prepared.data, 10, 10), RED)).toBe(true);
    expect(near(await colorAt(prepared.data, 2040, 10), BLUE)).toBe(true);
    expect(scaleNote(prepared)).toBe(
      "Image downscaled from 3000x2000 to 2048x1365 for vision; multiply any x coordinates you report by 1.46 and any y coordinates by 1.47 to map back to the original image.",
    );
  });

  it("leaves a small JPEG at its size, as JPEG, with no scale note", async () => {
    const jpeg = await image(800, 600, () => GREEN).jpeg().toBuffer();
    const prepared = await prepareImage(jpeg);
    expect(prepared).toMatchObject({ mimeType: "image/jpeg", width: 800, height: 600 });
    expect(scaleNote(prepared)).toBeUndefined();
  });

  it("turns an image upright from its EXIF orientation and drops the metadata", async () => {
    // Stored 400×200, left half red; orientation 6 shows it turned 90° clockwise: red on top.
    const stored = await image(400, 200, (x) => (x < 200 ? RED : BLUE))
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(stored).metadata()).orientation).toBe(6);
    const prepared = await prepareImage(stored);
    expect([prepared.width, prepared.height]).toEqual([200, 400]);
    expect(prepared.original).toEqual({ width: 200, height: 400 });
    expect(near(await colorAt(prepared.data, 100, 50), RED)).toBe(true);
    expect(near(await colorAt(prepared.data, 100, 350), BLUE)).toBe(true);
    const meta = await sharp(prepared.data).metadata();
    expect(meta.orientation).toBeUndefined();
    expect(meta.exif).toBeUndefined();
  });

  it("crops to [x1, y1, x2, y2] of the upright image before scaling, at full resolution", async () => {
    const quadrants = (x: number, y: number): Rgb => (y < 2000 ? (x < 2000 ? RED : BLUE) : x < 2000 ? GREEN : WHITE);
    const png = await image(4000, 4000, quadrants).png().toBuffer();
    const prepared = await prepareImage(png, { region: [2000, 0, 4000, 2000] });
    expect(prepared.crop).toEqual({ x: 2000, y: 0, width: 2000, height: 2000 });
    expect([prepared.width, prepared.height]).toEqual([2000, 2000]);
    expect(near(await colorAt(prepared.data, 5, 5), BLUE)).toBe(true);
    expect(near(await colorAt(prepared.data, 1995, 1995), BLUE)).toBe(true);
    expect(scaleNote(prepared)).toBe(
      "Analysis was performed on a cropped region of the original image starting at offset (2000, 0); coordinates are relative to that crop origin — add the offset to map back to the full image.",
    );

    const rotated = await image(400, 200, (x) => (x < 200 ? RED : BLUE)).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const bottom = await prepareImage(rotated, { region: [0, 250, 200, 400] });
    expect([bottom.width, bottom.height]).toEqual([200, 150]);
    expect(near(await colorAt(bottom.data, 100, 75), BLUE)).toBe(true);
  });

  it("clamps a region to the image and refuses one with no area, naming the image's size", async () => {
    expect(clampRegion([-10, -5, 5000, 100], { width: 300, height: 200 })).toEqual({ x: 0, y: 0, width: 300, height: 100 });
    expect(clampRegion([10.7, 20.2, 30.9, 40], { width: 300, height: 200 })).toEqual({ x: 10, y: 20, width: 20, height: 20 });
    const png = await image(300, 200, () => RED).png().toBuffer();
    await expect(prepareImage(png, { region: [250, 10, 100, 50] })).rejects.toThrow(/no area inside the image, which is 300x200 px/);
    await expect(prepareImage(png, { region: [400, 0, 500, 100] })).rejects.toThrow(HermesError);
  });

  it("keeps the encoded image under the byte budget: noise falls from PNG to JPEG", async () => {
    const png = await sharp(randomBytes(2048 * 2048 * 3), { raw: { width: 2048, height: 2048, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
    expect(png.length).toBeGreaterThan(MAX_ENCODED_CHARS);
    const prepared = await prepareImage(png);
    expect(prepared.mimeType).toBe("image/jpeg");
    expect(prepared.data.toString("base64").length).toBeLessThanOrEqual(MAX_ENCODED_CHARS);
  });

  it("keeps transparency in PNG", async () => {
    const rgba = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } }).png().toBuffer();
    const prepared = await prepareImage(rgba);
    expect(prepared.mimeType).toBe("image/png");
    expect((await sharp(prepared.data).metadata()).hasAlpha).toBe(true);
  });

  it("refuses bytes that are no image, truncated images and formats it does not read", async () => {
    await expect(prepareImage(Buffer.from("SECRET=hunter2\n"))).rejects.toMatchObject({ code: "invalid_params", message: expect.stringMatching(/^Not a readable image/) });
    const truncated = (await image(500, 500, () => RED).png().toBuffer()).subarray(0, 400);
    await expect(prepareImage(truncated)).rejects.toMatchObject({ code: "invalid_params" });
    const ppm = Buffer.concat([Buffer.from("P6\n2 2\n255\n"), pixels(2, 2, () => RED)]);
    await expect(prepareImage(ppm)).rejects.toThrow(/^Not a readable image/);
  });

  it("renders SVG without loading files it points at", async () => {
    const red = join(dir, "red.png");
    writeFileSync(red, await image(50, 50, () => RED).png().toBuffer());
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">
      <rect width="100" height="100" fill="#0000ff"/>
      <image x="0" y="0" width="50" height="50" href="file://${red}" xlink:href="file://${red}"/>
      <image x="50" y="50" width="50" height="50" href="${red}" xlink:href="${red}"/>
    </svg>`;
    const prepared = await prepareImage(Buffer.from(svg));
    expect([prepared.mimeType, prepared.width, prepared.height]).toEqual(["image/png", 100, 100]);
    expect(near(await colorAt(prepared.data, 25, 25), BLUE)).toBe(true);
    expect(near(await colorAt(prepared.data, 75, 75), BLUE)).toBe(true);
  });
});
