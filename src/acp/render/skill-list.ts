import { errorText, textContent, truncate, DISPLAY_LIMIT_LARGE } from "./text.js";
import type { ToolRenderer } from "./types.js";

/**
 * `skills_list`: start `Listing skills[ in <category>]`; completion one line per skill,
 * `- **name** (category) — description`, 7,000 chars at most, or "No skills found.".
 */
export const skillsListRenderer: ToolRenderer<"skills_list"> = {
  start(event) {
    const category = event.input?.category;
    return [textContent(category ? `Listing skills in ${category}` : "Listing skills")];
  },
  complete(event) {
    const details = event.details;
    if (event.isError) return { content: [textContent(`Skills not listed: ${details && "error" in details ? details.error : errorText(event.content)}`)], failed: true };
    if (!details || "error" in details) return { content: event.content ? [textContent(truncate(event.content, DISPLAY_LIMIT_LARGE))] : [] };
    if (details.skills.length === 0) return { content: [textContent("No skills found.")] };
    const lines = details.skills.map((skill) => {
      const where = skill.category ? ` (${skill.category})` : "";
      const about = skill.description.replace(/\s+/g, " ").trim();
      return `- **${skill.name}**${where}${about ? ` — ${about.length > 200 ? `${about.slice(0, 197)}...` : about}` : ""}`;
    });
    return { content: [textContent(truncate([`${details.skills.length} skill${details.skills.length === 1 ? "" : "s"}`, ...lines].join("\n"), DISPLAY_LIMIT_LARGE))] };
  },
};
