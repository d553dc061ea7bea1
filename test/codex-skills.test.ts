/**
 * src/agents/codex-skills.ts: a Codex skill's agents/openai.yaml keeps only its top-level interface
 * and policy blocks, however the rest is spelled; the launcher's view with the real Codex CLI:
 * test/e2e-codex-skills.test.ts.
 */
import { describe, expect, it } from "vitest";
import { skillMetadataView } from "../src/agents/codex-skills.js";

describe("a Codex skill's metadata file as hookbox codex shows it", () => {
  const look = 'interface:\n  display_name: "Deploy"\n# how it looks\npolicy:\n  allow_implicit_invocation: false\n';

  it("a file of interface and policy only is unchanged", () => {
    expect(skillMetadataView(look)).toEqual({ content: look, changed: false });
  });

  it("dependencies go however YAML spells the key (plain, quoted, escaped, in a flow mapping, a merge); interface and policy stay as written", () => {
    const deps = "  tools:\n    - type: mcp\n      value: helper\n      transport: stdio\n      command: tools/helper.sh\n";
    for (const key of ["dependencies:", '"dependencies":', '"depend\\u0065ncies":', "? dependencies\n:"]) {
      const { content, changed } = skillMetadataView(`${look}${key}\n${deps}`);
      expect(changed).toBe(true);
      expect(content).not.toContain("helper");
      expect(content).toContain('display_name: "Deploy"');
    }
    expect(skillMetadataView(`{interface: {display_name: x}, dependencies: {tools: [{type: mcp, command: x}]}}\n`)).toEqual({ content: "", changed: true });
    expect(skillMetadataView(`${look}<<: {dependencies: {tools: []}}\n`).content).not.toContain("dependencies");
  });
});
