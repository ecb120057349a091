import type { AuthMethod } from "@agentclientprotocol/sdk/unstable";

export const TERMINAL_SETUP_METHOD_ID = "hermes-setup";

/**
 * The configured provider's runtime method (when one is configured), and always the terminal
 * setup method that runs `hermes-acp --setup`.
 */
export function buildAuthMethods(configuredProvider: string | undefined): AuthMethod[] {
  const methods: AuthMethod[] = [];
  if (configuredProvider) {
    methods.push({
      id: configuredProvider,
      name: `${configuredProvider} runtime credentials`,
      description: `Authenticate Hermes using the currently configured ${configuredProvider} runtime credentials.`,
    });
  }
  methods.push({
    id: TERMINAL_SETUP_METHOD_ID,
    type: "terminal",
    name: "Configure Hermes provider",
    description:
      "Open Hermes' interactive model/provider setup in a terminal. Use this when Hermes has not been configured on this machine yet.",
    args: ["--setup"],
  });
  return methods;
}

/**
 * Whether `authenticate(methodId)` succeeds: a provider must be configured, and the id must be
 * the terminal setup method or that provider (case-insensitive). Anything else fails closed.
 */
export function authenticateMethod(methodId: unknown, configuredProvider: string | undefined): boolean {
  if (typeof methodId !== "string" || !configuredProvider) return false;
  const id = methodId.trim().toLowerCase();
  return id === TERMINAL_SETUP_METHOD_ID || id === configuredProvider.toLowerCase();
}
