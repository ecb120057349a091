import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";

/**
 * The user's text from ACP prompt blocks: text blocks joined by newlines, trimmed. Resource
 * blocks contribute their text (or a note naming the link); images and audio are not yet
 * supported and are noted in the text so the model knows something was attached.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        if (block.text) parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`[Resource link: ${block.uri}]`);
        break;
      case "resource":
        if ("text" in block.resource) parts.push(`[Attached file: ${block.resource.uri}]\n\n${block.resource.text}`);
        else parts.push(`[Binary embedded resource omitted: ${block.resource.uri}]`);
        break;
      case "image":
        parts.push("[Image attachment omitted: this agent does not accept images yet]");
        break;
      default:
        break;
    }
  }
  return parts.join("\n").trim();
}
