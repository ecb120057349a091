import { beforeEach, describe, expect, it } from "vitest";
import {
  clearRegisteredSecrets,
  isSecretName,
  maskSecret,
  redactRegisteredSecrets,
  redactSecrets,
  registerCredentialUrls,
  registerEnvSecrets,
  registerSecret,
} from "./redact.js";

beforeEach(() => clearRegisteredSecrets());

const OPENROUTER = "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef";
const ANTHROPIC = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const OPENAI = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx";
const GITHUB = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
const GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnop";
const GOOGLE = "AIzaSyA-0123456789abcdefghijklmnopqrstu";

describe("redactSecrets", () => {
  it.each([
    [OPENROUTER, "sk-or-v1-***"],
    [ANTHROPIC, "sk-ant-api03-***"],
    [OPENAI, "sk-proj-***"],
    ["sk-0123456789abcdefABCDEF", "sk-***"],
    [GITHUB, "ghp_***"],
    [GITHUB_PAT, "github_pat_***"],
    [GOOGLE, "AIza***"],
    ["hf_abcdefghijklmnopqrstuvwxyz0123", "hf_***"],
  ])("masks vendor key %s", (key, masked) => {
    const out = redactSecrets(`calling with key ${key} now`);
    expect(out).toBe(`calling with key ${masked} now`);
    expect(out).not.toContain(key);
  });

  it("masks Bearer tokens", () => {
    const out = redactSecrets("Authorization: Bearer abc.def-ghi_jkl123456");
    expect(out).not.toContain("abc.def-ghi_jkl123456");
    expect(out).toContain("Bearer ***");
  });

  it("masks secret-named assignments in env, YAML and JSON forms", () => {
    expect(redactSecrets("DEEPSEEK_API_KEY=plainvalue123")).toBe("DEEPSEEK_API_KEY=***");
    expect(redactSecrets("export GITHUB_TOKEN='tok value'")).toBe("export GITHUB_TOKEN='***'");
    expect(redactSecrets("  api_key: plainvalue123")).toBe("  api_key: ***");
    expect(redactSecrets('{"api_key": "plainvalue123", "model": "x"}')).toBe('{"api_key": "***", "model": "x"}');
    expect(redactSecrets("{ apiKey: 'plainvalue123' }")).toBe("{ apiKey: '***' }");
    expect(redactSecrets("password=hunter2 user=bob")).toBe("password=*** user=bob");
  });

  it("keeps the vendor prefix when a secret-named assignment holds a vendor key", () => {
    expect(redactSecrets(`OPENROUTER_API_KEY=${OPENROUTER}`)).toBe("OPENROUTER_API_KEY=sk-or-v1-***");
  });

  it("masks secret URL parameters", () => {
    expect(redactSecrets("GET https://x.example/v1?key=abcdef123&alt=sse")).toBe("GET https://x.example/v1?key=***&alt=sse");
  });

  it("leaves ordinary text alone", () => {
    const text = "task-0123456789abcdefgh max_tokens: 4096 key_env: OPENROUTER_API_KEY sk-learn tokens: 12 no-key-required";
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets("")).toBe("");
  });

  it("always masks registered values, however they look", () => {
    registerSecret("weird.secret/value");
    registerSecret("short");
    registerSecret("no-key-required");
    registerSecret(undefined);
    const out = redactSecrets("a weird.secret/value b short c no-key-required");
    expect(out).toBe("a *** b short c no-key-required");
  });

  it("masks a registered vendor key whole, with its prefix kept", () => {
    const key = "sk-or-v1-abc.def";
    registerSecret(key);
    expect(redactSecrets(`x ${key} y`)).toBe("x sk-or-v1-*** y");
    expect(redactSecrets(`Authorization: Bearer ${key}`)).toBe("Authorization: Bearer sk-or-v1-***");
  });

  it("registers secret-named variables from an environment", () => {
    registerEnvSecrets({ MY_API_KEY: "aaaa-bbbb-cccc", HOME: "/home/someone", SOME_TOKEN: "tttttttttt" });
    expect(redactSecrets("aaaa-bbbb-cccc /home/someone tttttttttt")).toBe("*** /home/someone ***");
  });

  it("maskSecret keeps only a known prefix, or a credential URL without its password", () => {
    expect(maskSecret(OPENROUTER)).toBe("sk-or-v1-***");
    expect(maskSecret("whatever")).toBe("***");
    expect(maskSecret("postgres://app:pw@db.example/app")).toBe("postgres://app:***@db.example/app");
  });

  it("masks the password of any credential URL", () => {
    expect(redactSecrets("DATABASE_URL=postgres://app:pw@db.example:5432/app")).toBe("DATABASE_URL=postgres://app:***@db.example:5432/app");
    expect(redactSecrets("redis://:s3cret@cache:6379 and https://bot:tok@git.example/x.git")).toBe(
      "redis://:***@cache:6379 and https://bot:***@git.example/x.git",
    );
    const plain = "https://example.com:8080/a@b http://user@host/ mailto:x@y.z";
    expect(redactSecrets(plain)).toBe(plain);
  });

  it("registers credential URLs found in any variable, and their long passwords on their own", () => {
    registerEnvSecrets({ DATABASE_URL: "postgres://app:longpassword1@db/app", HOME: "/home/x", SHORT: "mysql://root:pw@localhost/db" });
    expect(redactRegisteredSecrets("psql postgres://app:longpassword1@db/app")).toBe("psql postgres://app:***@db/app");
    expect(redactRegisteredSecrets("PGPASSWORD=longpassword1")).toBe("PGPASSWORD=***");
    expect(redactRegisteredSecrets("mysql://root:pw@localhost/db")).toBe("mysql://root:***@localhost/db");
    expect(redactRegisteredSecrets("/home/x pw")).toBe("/home/x pw");
    registerCredentialUrls("amqp://bus:p%40ss%2Fword99@mq/");
    expect(redactRegisteredSecrets("password p@ss/word99")).toBe("password ***");
  });

  it("registerCredentialUrls ignores text without credential URLs", () => {
    registerCredentialUrls("see https://example.com/docs and user@example.com");
    registerCredentialUrls(undefined);
    expect(redactRegisteredSecrets("https://example.com/docs")).toBe("https://example.com/docs");
  });
});

describe("redactRegisteredSecrets", () => {
  const KEY = "tok_9f8e7d6c5b4a39281706f5e4";

  it("masks the encoded and reversed spellings of registered secrets", () => {
    registerSecret(KEY);
    const env = `MY_TOKEN=${KEY}\n`;
    const spellings = [
      Buffer.from(env).toString("base64"),
      Buffer.from(env).toString("base64url"),
      Buffer.from(env).toString("hex"),
      Buffer.from(env).toString("hex").toUpperCase(),
      [...env.trimEnd()].reverse().join(""),
    ];
    for (const spelling of spellings) {
      const masked = redactRegisteredSecrets(spelling);
      expect(masked, spelling).toContain("***");
      expect(masked).not.toContain(Buffer.from(KEY).toString("hex").slice(4, 20));
    }
    expect(redactRegisteredSecrets(`x ${KEY} y`)).toBe("x *** y");
  });

  it("registers each line of a multi-line value too", () => {
    registerSecret("-----BEGIN KEY-----\nAAAABBBBCCCCDDDD\nEEEEFFFFGGGGHHHH\n-----END KEY-----");
    expect(redactRegisteredSecrets("2|EEEEFFFFGGGGHHHH")).toBe("2|***");
  });

  it("recompiles when the set changes", () => {
    expect(redactRegisteredSecrets("alpha-secret-1 beta-secret-2")).toBe("alpha-secret-1 beta-secret-2");
    registerSecret("alpha-secret-1");
    expect(redactRegisteredSecrets("alpha-secret-1 beta-secret-2")).toBe("*** beta-secret-2");
    registerSecret("beta-secret-2");
    expect(redactRegisteredSecrets("alpha-secret-1 beta-secret-2")).toBe("*** ***");
  });

  it("does not apply pattern masking to tool output", () => {
    const text = "password=hunter2 postgres://a:b@c/d";
    expect(redactRegisteredSecrets(text)).toBe(text);
  });
});

describe("one rule for secret names", () => {
  it("treats environment names and names in text alike", () => {
    const names = ["OPENROUTER_API_KEY", "STRIPE_KEY", "GITHUB_TOKEN", "PGPASSWORD", "CLIENT_SECRET", "AWS_SECRET_ACCESS_KEY", "MY_SECRET_THING", "apiKey", "token"];
    for (const name of names) {
      expect(isSecretName(name), name).toBe(true);
      expect(redactSecrets(`${name}=hunter2hunter2`), name).not.toContain("hunter2");
    }
    for (const name of ["max_tokens", "tokenizer", "PATH", "SSH_AUTH_SOCK", "KEYBOARD"]) {
      expect(isSecretName(name), name).toBe(false);
      expect(redactSecrets(`${name}=plainvalue42`), name).toContain("plainvalue42");
    }
  });
});
