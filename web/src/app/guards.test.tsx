import { screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { describe, expect, it } from "vitest";
import { admin, member, renderWithUser } from "@/test/render";
import { RequireAccess, RequireAuth } from "./guards";

function SignIn() {
  const { search } = useLocation();
  return <p>sign-in screen, then {new URLSearchParams(search).get("next")}</p>;
}

const app = (path: string) => (
  <MemoryRouter initialEntries={[path]}>
    <Routes>
      <Route path="/auth" element={<SignIn />} />
      <Route element={<RequireAuth />}>
        <Route
          path="/"
          element={
            <RequireAccess requires={{ feature: ["dashboard"] }}>
              <p>stats screen</p>
            </RequireAccess>
          }
        />
        <Route path="/codes" element={<p>codes screen</p>} />
        <Route
          path="/users"
          element={
            <RequireAccess requires="admin">
              <p>users screen</p>
            </RequireAccess>
          }
        />
      </Route>
    </Routes>
  </MemoryRouter>
);

describe("route guards", () => {
  it("sends a signed-out visitor to /auth, naming the whole URL they asked for", () => {
    renderWithUser(app("/users?role=admin#list"), null);
    expect(screen.getByText("sign-in screen, then /users?role=admin#list")).toBeTruthy();
  });

  it("sends a member away from an admin screen to their home", () => {
    renderWithUser(app("/users"), member(["campaigns"]));
    expect(screen.getByText("codes screen")).toBeTruthy();
  });

  it("sends a member with the dashboard feature home to the stats screen", () => {
    renderWithUser(app("/users"), member(["dashboard"]));
    expect(screen.getByText("stats screen")).toBeTruthy();
  });

  it("lets an admin in", () => {
    renderWithUser(app("/users"), admin());
    expect(screen.getByText("users screen")).toBeTruthy();
  });
});
