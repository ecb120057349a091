import { errorText, textContent, truncate } from "./text.js";
import { editDiffContent } from "./edit.js";
import type { ToolRenderer } from "./types.js";

/**
 * `skill_manage` shows like the edit tools: the start says what is being changed; completion
 * every changed skill file as a diff block (old → new; a removed file or deleted skill as its
 * text going away) under the tool's message, the files as the call's locations.
 */
export const skillManageRenderer: ToolRenderer<"skill_manage"> = {
  start(event) {
    const input = event.input;
    if (!input) return [textContent("Preparing skill change.")];
    const file = input.file_path ? ` (${input.file_path})` : "";
    return [textContent(`Preparing ${input.action.replace("_", " ")} of skill ${input.name}${file}.`)];
  },
  complete(event) {
    const details = event.details;
    if (event.isError) {
      const error = details && "error" in details ? details.error : errorText(event.content);
      return { content: [textContent(truncate(`skill_manage failed: ${error}`, 3000))], failed: true };
    }
    if (!details || "error" in details) return { content: event.content ? [textContent(truncate(event.content, 3000))] : [] };
    const message = details.message ? [textContent(details.message)] : [];
    return {
      content: [...message, ...details.files.map(editDiffContent)],
      locations: details.files.map((file) => ({ path: file.path })),
    };
  },
};
