/**
 * Whether a model takes images, and whether the vision toolset can be offered at all.
 *
 * Hermes asks its catalog (models.dev), a local server or config overrides; this agent fetches no
 * catalog, so it trusts, in order: an explicit `auxiliary.vision.model` (the user chose a model
 * for images), `model.supports_vision` (Hermes' override: true or false), then a heuristic on the
 * model's name for well-known vision families. A name the heuristic does not know counts as
 * text-only: the toolset is then not offered, and `/tools` says why and what to set.
 */
import type { HermesConfig } from "../../config/schema.js";

/**
 * Families known to take images, tested against the model id lower-cased, without any
 * `provider/` prefix (`openai/gpt-4o` → `gpt-4o`) or Bedrock `vendor.` prefix.
 */
const VISION_FAMILIES: readonly RegExp[] = [
  // OpenAI: GPT-4o / 4.1 / 4.5 / 5, GPT-4 Turbo with vision, o1 / o3 (not the minis), o4-mini.
  /^(chat)?gpt-4o/,
  /^gpt-4\.[15]/,
  /^gpt-4-turbo(-\d{4}-\d\d-\d\d)?$/,
  /^gpt-4.*vision/,
  /^gpt-[5-9]/,
  /^o1(-pro)?(-\d{4}-\d\d-\d\d)?$/,
  /^o3(-pro)?(-\d{4}-\d\d-\d\d)?$/,
  /^o[4-9]-mini/,
  // Anthropic: every Claude from 3 on, and the bare aliases.
  /^claude-([3-9]|(opus|sonnet|haiku)-[4-9])/,
  /^(opus|sonnet)([-.\d]*)$/,
  /^haiku-[4-9]/,
  // Google: Gemini (not the text-only 1.0 Pro), Gemma 3 and later.
  /^gemini-/,
  /^gemma-?([3-9]|3n)/,
  // Qwen VL / QVQ / Omni.
  /^qwen[\d.]*-?(vl|omni)/,
  /^qvq/,
  // Meta: LLaVA, Llama 3.2 Vision, Llama 4.
  /^(bak)?llava/,
  /^llama-?3\.2.*vision/,
  /^llama-?[4-9]([-:.]|$)/,
  // Mistral: Pixtral, Small 3.1+, Medium 3.
  /pixtral/,
  /^mistral-small-(3\.[1-9]|25(0[3-9]|[1-9]\d))/,
  /^mistral-medium-(3|25\d\d)/,
  // xAI: Grok vision models, Grok 4 and later.
  /^grok-([\d.]+-)?vision/,
  /^grok-1\.5v/,
  /^grok-([4-9]|\d\d)/,
  // Zhipu GLM-4V family, MiniCPM-V/o, InternVL, Moondream, CogVLM, Amazon Nova (multimodal tiers).
  /^glm-?\d(\.\d)?v/,
  /^minicpm-?[vo]/,
  /internvl/,
  /moondream/,
  /cogvlm/,
  /^nova-(lite|pro|premier)/,
  // Names that say so: `…-vision…`, `…-vl…`, `…-vlm…` as a word of the name.
  /(^|[-_:.])(vision|vl\d*|vlm)([-_:.]|$)/,
];

/** Ids inside the families above that do not take images (speech, embeddings, tiny text-only sizes). */
const NOT_VISION: readonly RegExp[] = [
  /(audio|realtime|transcribe|tts|embedding|search-preview|image-generation)/,
  /^gemini-(1\.0-)?pro(-\d+)?$/,
  /^gemma-?3.*([-:]|^)(1b|270m)/,
];

/** The part of a model id the families are tested on. */
function bareName(model: string): string {
  const last = model.trim().toLowerCase().split("/").pop() ?? "";
  return last.replace(/^((us|eu|apac)\.)?(anthropic|meta|amazon|mistral|google)\./, "");
}

/** True when the model's name belongs to a well-known family that takes images (a heuristic; see the module). */
export function nameSuggestsVision(model: string): boolean {
  const name = bareName(model);
  if (!name) return false;
  if (NOT_VISION.some((pattern) => pattern.test(name))) return false;
  return VISION_FAMILIES.some((pattern) => pattern.test(name));
}

/**
 * Whether the session's model takes images: `model.supports_vision` when set (true or false),
 * else the name heuristic. Used for the session's own model only — a model named in
 * `auxiliary.vision` is trusted as configured.
 */
export function modelTakesImages(model: string, config: Partial<Pick<HermesConfig, "model">>): boolean {
  const override = config.model?.supports_vision;
  if (override !== undefined) return override;
  return nameSuggestsVision(model);
}

/** The model `auxiliary.vision` names for images, or undefined when images go to the session's model. */
export function configuredVisionModel(config: Partial<Pick<HermesConfig, "auxiliary">>): string | undefined {
  const model = config.auxiliary?.vision?.model?.trim();
  return model ? model : undefined;
}

/**
 * Why the vision toolset is not offered with this config, or undefined when it is: a model is
 * named in `auxiliary.vision`, or the configured default model (`model.default`) takes images.
 * Judged once per config (a later `/model` switch is checked when the tool runs). Never throws.
 */
export function visionUnavailableReason(config: Partial<Pick<HermesConfig, "model" | "auxiliary">>): string | undefined {
  if (configuredVisionModel(config)) return undefined;
  const model = config.model?.default?.trim();
  if (!model) return "no model is configured; set model.default, or auxiliary.vision.model for images";
  if (modelTakesImages(model, config)) return undefined;
  if (config.model?.supports_vision === false) return `model.supports_vision is false for ${model}; set auxiliary.vision.model to a model that takes images`;
  return `the session model ${model} does not take images; set auxiliary.vision.model (or model.supports_vision: true if it does)`;
}
