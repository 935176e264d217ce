import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { MarkdownBlocks, readmeSection } from "./readme-section";

describe("README sections in the app", () => {
  it("finds the section the data-sources card links to, up to the next section", () => {
    const section = readmeSection("Performance data sources")!;
    expect(section).toContain("npx wrangler secret put NAME");
    expect(section).toContain("CAKE_API_KEY");
    expect(section).not.toContain("## Verification codes");
    expect(readmeSection("No such section")).toBeNull();
  });

  it("renders paragraphs, lists, tables, code and inline marks", () => {
    const text = "Intro with `code` and **bold**\nwrapped.\n\n| name | what |\n|---|---|\n| `A` | first |\n\n- one\n  more\n- two\n\n```\nnpm start\n```";
    render(<MarkdownBlocks text={text} />);
    expect(screen.getByText("code").tagName).toBe("CODE");
    expect(screen.getByText("bold").tagName).toBe("STRONG");
    expect(screen.getByText(/wrapped\./).tagName).toBe("P");
    expect(screen.getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["name", "what"]);
    expect(screen.getAllByRole("cell").map((c) => c.textContent)).toEqual(["A", "first"]);
    expect(screen.getAllByRole("listitem").map((l) => l.textContent)).toEqual(["one more", "two"]);
    expect(screen.getByText("npm start").tagName).toBe("PRE");
  });
});
