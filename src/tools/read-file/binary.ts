/**
 * Binary and device detection for read_file: which paths and bytes must never be shown as text.
 * Pure helpers; the caller does the I/O.
 */

/** How many leading bytes are sampled for a NUL byte. */
export const BINARY_SAMPLE_BYTES = 8192;

/** Extensions refused without looking at the bytes, with the description shown to the model. */
const BINARY_EXTENSIONS: Readonly<Record<string, string>> = {
  png: "PNG image",
  jpg: "JPEG image",
  jpeg: "JPEG image",
  gif: "GIF image",
  bmp: "BMP image",
  ico: "icon image",
  icns: "icon image",
  webp: "WebP image",
  tif: "TIFF image",
  tiff: "TIFF image",
  heic: "HEIC image",
  avif: "AVIF image",
  psd: "Photoshop image",
  pdf: "PDF document",
  doc: "Word document",
  docx: "Word document",
  xls: "Excel spreadsheet",
  xlsx: "Excel spreadsheet",
  ppt: "PowerPoint presentation",
  pptx: "PowerPoint presentation",
  odt: "OpenDocument file",
  ods: "OpenDocument file",
  zip: "Zip archive",
  gz: "gzip archive",
  tgz: "gzip archive",
  bz2: "bzip2 archive",
  xz: "xz archive",
  zst: "Zstandard archive",
  "7z": "7-Zip archive",
  rar: "RAR archive",
  tar: "tar archive",
  jar: "Java archive",
  war: "Java archive",
  apk: "Android package",
  deb: "Debian package",
  rpm: "RPM package",
  dmg: "disk image",
  iso: "disk image",
  img: "disk image",
  exe: "Windows executable",
  dll: "Windows library",
  msi: "Windows installer",
  so: "shared library",
  dylib: "shared library",
  a: "static library",
  lib: "static library",
  o: "object file",
  obj: "object file",
  class: "Java class file",
  pyc: "Python bytecode",
  pyo: "Python bytecode",
  wasm: "WebAssembly module",
  node: "Node.js native addon",
  bin: "binary data",
  woff: "WOFF font",
  woff2: "WOFF2 font",
  ttf: "TrueType font",
  otf: "OpenType font",
  eot: "Embedded OpenType font",
  mp3: "MP3 audio",
  wav: "WAV audio",
  flac: "FLAC audio",
  ogg: "Ogg media",
  m4a: "MPEG-4 audio",
  aac: "AAC audio",
  mp4: "MPEG-4 video",
  m4v: "MPEG-4 video",
  mov: "QuickTime video",
  avi: "AVI video",
  mkv: "Matroska video",
  webm: "WebM video",
  sqlite: "SQLite database",
  sqlite3: "SQLite database",
  db: "database file",
  parquet: "Parquet data",
  npy: "NumPy array",
  pkl: "Python pickle",
  pt: "PyTorch weights",
  safetensors: "safetensors weights",
  onnx: "ONNX model",
};

/** Leading-byte signatures used to name the type of a file whose content looked binary. */
const MAGIC: ReadonlyArray<readonly [bytes: readonly number[], description: string]> = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image"],
  [[0xff, 0xd8, 0xff], "JPEG image"],
  [[0x47, 0x49, 0x46, 0x38], "GIF image"],
  [[0x25, 0x50, 0x44, 0x46], "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "Zip archive"],
  [[0x1f, 0x8b], "gzip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable"],
  [[0x4d, 0x5a], "Windows executable"],
  [[0xcf, 0xfa, 0xed, 0xfe], "Mach-O executable"],
  [[0x00, 0x61, 0x73, 0x6d], "WebAssembly module"],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], "SQLite database"],
  [[0x77, 0x4f, 0x46, 0x46], "WOFF font"],
  [[0x77, 0x4f, 0x46, 0x32], "WOFF2 font"],
];

/** Lower-case extension without the dot, or "" when the name has none. */
function extensionOf(filePath: string): string {
  const base = filePath.slice(filePath.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

/** The description of a known binary extension, or undefined for anything else. */
export function binaryTypeByExtension(filePath: string): string | undefined {
  const ext = extensionOf(filePath);
  return Object.hasOwn(BINARY_EXTENSIONS, ext) ? BINARY_EXTENSIONS[ext] : undefined;
}

/**
 * The description of binary content, or undefined when the sample looks like text.
 * Content counts as binary when it has a NUL byte in the sample (the file's first bytes).
 */
export function binaryTypeByContent(sample: Uint8Array): string | undefined {
  if (!sample.includes(0)) return undefined;
  for (const [bytes, description] of MAGIC) {
    if (bytes.length <= sample.length && bytes.every((byte, i) => sample[i] === byte)) return description;
  }
  return "binary data";
}

/** Human-readable size: `512 bytes`, `4.1 KB`, `3.0 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

/** The message the model gets for a refused binary file. */
export function binaryMessage(description: string, size: number): string {
  return `Binary file (${description}, ${formatSize(size)}) — cannot display as text`;
}

/**
 * True for paths that name devices or process file descriptors (`/dev/zero`, `/dev/stdin`,
 * `/proc/self/fd/0`, `/proc/123/fd/4`), which can block forever or never end. Takes an absolute,
 * normalized path; symlinks elsewhere that point at devices are caught by the caller's stat check.
 */
export function isDevicePath(absolutePath: string): boolean {
  if (absolutePath.startsWith("/dev/")) return true;
  return /^\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/(?:fd|fdinfo)(?:\/|$)/.test(absolutePath);
}
