/**
 * The sessions of a made-up Hermes user for `writeHermesState` (hermes-state-fixture.ts): ids in
 * Hermes' `YYYYMMDD_HHMMSS_hex` form, times in epoch seconds from `base`.
 */
import type { HermesFixtureSession } from "./hermes-state-fixture.js";

/** A few sessions of a Hermes user: CLI, Telegram, a compression continuation, a branch, a cron job, a hidden subagent run. */
export function hermesUserSessions(base = 1_735_000_000): HermesFixtureSession[] {
  return [
    {
      id: "20241224_010000_aa11",
      source: "cli",
      title: "Deploy script",
      cwd: "/home/user/infra",
      startedAt: base,
      messages: [
        { role: "user", content: "write a deploy script for the walrus cluster" },
        { role: "assistant", content: null, toolCalls: [{ id: "call_1", name: "terminal", arguments: '{"command":"ls deploy"}' }] },
        { role: "tool", content: "deploy.sh", toolCallId: "call_1", toolName: "terminal" },
        { role: "assistant", content: "The walrus deploy script is in deploy.sh." },
      ],
    },
    {
      id: "20241224_020000_bb22",
      source: "telegram",
      title: "Pancake recipe",
      startedAt: base + 3600,
      messages: [
        { role: "user", content: "what goes into buttermilk pancakes?" },
        { role: "assistant", content: "Buttermilk, flour, eggs, baking soda and a pinch of salt." },
        { role: "user", content: "a rewound question about buttermilk waffles", active: 0, compacted: 0 },
      ],
    },
    {
      id: "20241224_030000_cc33",
      source: "discord",
      title: "Telescope choice",
      startedAt: base + 7200,
      endedAt: base + 7300,
      endReason: "compression",
      messages: [
        { role: "user", content: "which telescope suits astrophotography of nebulae?" },
        { role: "assistant", content: "A refractor with an equatorial mount suits nebulae." },
      ],
    },
    {
      id: "20241224_031000_cc34",
      source: "discord",
      title: "Telescope choice #2",
      parentSessionId: "20241224_030000_cc33",
      startedAt: base + 7400,
      messages: [
        { role: "user", content: "[CONTEXT SUMMARY]: the user asked about telescopes for nebulae" },
        { role: "user", content: "and which camera for nebulae photos?" },
        { role: "assistant", content: "A cooled astro camera works best for nebulae." },
      ],
    },
    {
      id: "20241224_040000_dd44",
      source: "cron",
      title: "Nightly nebulae digest",
      startedAt: base + 9000,
      messages: [{ role: "assistant", content: "Digest: nebulae news of the night." }],
    },
    {
      id: "20241224_050000_ee55",
      source: "subagent",
      title: "Delegated research",
      parentSessionId: "20241224_010000_aa11",
      startedAt: base + 10_000,
      messages: [{ role: "assistant", content: "secret subagent notes about the walrus cluster and buttermilk" }],
    },
    {
      id: "20241224_060000_ff66",
      source: "telegram",
      title: "Gateway delegate",
      startedAt: base + 11_000,
      modelConfig: { _delegate_from: "20241224_020000_bb22" },
      messages: [{ role: "assistant", content: "delegate child notes on buttermilk sourcing" }],
    },
  ];
}
