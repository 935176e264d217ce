import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { RulesTabs } from "./rules-tabs";

const tabsAt = (path: string) => {
  const { unmount } = render(
    <MemoryRouter initialEntries={[path]}>
      <RulesTabs />
    </MemoryRouter>,
  );
  const nav = screen.getByRole("navigation", { name: "Rules sections" });
  const links = within(nav).getAllByRole("link");
  const seen = {
    tabs: links.map((l) => [l.textContent, l.getAttribute("href")]),
    current: links.filter((l) => l.getAttribute("aria-current") === "page").map((l) => l.textContent),
  };
  unmount();
  return seen;
};

describe("the Rules area's tabs", () => {
  it("are the same three on every Rules screen, the screen's own one current", () => {
    const tabs = [
      ["Rules", "/rules"],
      ["Channels", "/rules/channels"],
      ["Built-in alerts", "/rules/alerts"],
    ];
    for (const [path, current] of [
      ["/rules", "Rules"],
      ["/rules/new", "Rules"],
      ["/rules/12", "Rules"],
      ["/rules/channels", "Channels"],
      ["/rules/alerts", "Built-in alerts"],
    ]) {
      expect(tabsAt(path!)).toEqual({ tabs, current: [current] });
    }
  });
});
