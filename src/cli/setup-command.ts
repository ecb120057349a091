import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { upsertEnvFile, writeConfigModel } from "../config/write.js";
import { bootstrap } from "./bootstrap.js";

interface ProviderChoice {
  id: string;
  label: string;
  keyEnv?: string;
  defaultModel?: string;
  needsBaseUrl?: boolean;
}

const CHOICES: ProviderChoice[] = [
  { id: "openrouter", label: "OpenRouter (one key, many models)", keyEnv: "OPENROUTER_API_KEY", defaultModel: "anthropic/claude-sonnet-4" },
  { id: "openai", label: "OpenAI", keyEnv: "OPENAI_API_KEY", defaultModel: "gpt-4.1" },
  { id: "custom", label: "Local or custom OpenAI-compatible server (Ollama, llama.cpp, vLLM, …)", needsBaseUrl: true },
];

/**
 * `--setup`: asks for provider, key and model, then writes config.yaml and .env (mode 0600).
 * Refuses when stdin is not a terminal, since an editor's pipe cannot answer questions.
 */
export async function runSetup(): Promise<number> {
  const paths = bootstrap({ logFile: false });
  if (!process.stdin.isTTY) {
    process.stderr.write(
      `hermes acp --setup is interactive and needs a terminal (stdin is not a TTY).\n` +
        `Without a terminal, set OPENROUTER_API_KEY in ${paths.envFile} or edit ${paths.configFile}.\n`,
    );
    return 1;
  }
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stdout.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  // Lines typed ahead of a question are buffered by the iterator instead of being dropped.
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (prompt: string, options: { secret?: boolean } = {}): Promise<string> => {
    process.stdout.write(prompt);
    muted = options.secret === true;
    const next = await lines.next();
    muted = false;
    if (options.secret) process.stdout.write("\n");
    if (next.done) throw new SetupAborted();
    return String(next.value).trim();
  };
  try {
    process.stdout.write(`Hermes setup — writes ${paths.configFile} and ${paths.envFile}\n\n`);
    CHOICES.forEach((choice, index) => process.stdout.write(`  ${index + 1}. ${choice.label}\n`));
    const choice = await pickProvider(ask);
    let baseUrl: string | undefined;
    if (choice.needsBaseUrl) {
      baseUrl = (await ask("Base URL [http://localhost:11434/v1]: ")) || "http://localhost:11434/v1";
    }
    const keyPrompt = choice.keyEnv ? `${choice.keyEnv} (input hidden): ` : "API key (input hidden, leave empty for none): ";
    const key = await ask(keyPrompt, { secret: true });
    if (choice.keyEnv && !key) {
      process.stderr.write(`A key is required for ${choice.id}. Nothing was written.\n`);
      return 1;
    }
    const modelPrompt = choice.defaultModel ? `Model [${choice.defaultModel}]: ` : "Model name: ";
    const model = (await ask(modelPrompt)) || choice.defaultModel;
    if (!model) {
      process.stderr.write("A model name is required. Nothing was written.\n");
      return 1;
    }
    writeConfigModel(paths.home, {
      provider: choice.id,
      model,
      ...(baseUrl ? { base_url: baseUrl } : {}),
      ...(!choice.keyEnv && key ? { api_key: key } : {}),
    });
    if (choice.keyEnv) upsertEnvFile(paths.home, { [choice.keyEnv]: key });
    process.stdout.write(`Saved. Provider ${choice.id}, model ${model}. Check it with: hermes chat -q "hello"\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof SetupAborted)) throw error;
    process.stderr.write("\nSetup cancelled. Nothing was written.\n");
    return 1;
  } finally {
    rl.close();
  }
}

class SetupAborted extends Error {}

async function pickProvider(ask: (prompt: string) => Promise<string>): Promise<ProviderChoice> {
  for (;;) {
    const answer = (await ask(`Provider [1-${CHOICES.length}, default 1]: `)) || "1";
    const choice = CHOICES[Number(answer) - 1] ?? CHOICES.find((candidate) => candidate.id === answer.toLowerCase());
    if (choice) return choice;
    process.stdout.write(`Please answer 1 to ${CHOICES.length}.\n`);
  }
}
