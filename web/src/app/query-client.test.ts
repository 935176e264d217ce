import { QueryObserver } from "@tanstack/react-query";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/lib/api";
import { userQuery, type CurrentUser } from "@/lib/auth";
import { member } from "@/test/render";
import { createQueryClient } from "./query-client";

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

afterEach(() => vi.unstubAllGlobals());

describe("the query client", () => {
  it("reloads the signed-in user when any call answers 403, so the screens follow the new rights", async () => {
    const client = createQueryClient();
    const before = member(["dashboard", "clicks"]);
    const after = member(["dashboard"]);
    const fetch = vi.fn(async () => json(after));
    vi.stubGlobal("fetch", fetch);
    client.setQueryData(userQuery.queryKey, before);
    // The layout watches the user the whole time the app is open.
    const watching = new QueryObserver(client, userQuery).subscribe(() => {});

    await expect(
      client.fetchQuery({ queryKey: ["clicks"], queryFn: () => Promise.reject(new ApiError(403, "You do not have access to this feature")) }),
    ).rejects.toThrow("You do not have access");
    await vi.waitFor(() => expect(client.getQueryData<CurrentUser>(userQuery.queryKey)?.permissions).toEqual(["dashboard"]));
    expect(fetch).toHaveBeenCalledTimes(1);

    // A mutation's 403 too; other failures leave the user alone.
    await client
      .getMutationCache()
      .build(client, { mutationFn: () => Promise.reject(new ApiError(403, "Admins only")) })
      .execute(undefined)
      .catch(() => {});
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    await client.fetchQuery({ queryKey: ["codes"], queryFn: () => Promise.reject(new ApiError(500, "Boom")) }).catch(() => {});
    await client.fetchQuery({ queryKey: ["sparks"], queryFn: () => Promise.reject(new ApiError(404, "Not found")) }).catch(() => {});
    await new Promise((r) => setTimeout(r, 20));
    expect(fetch).toHaveBeenCalledTimes(2);
    watching();
  });

  it("finds the user signed out when a call answers 401 (the session ended elsewhere), so the guard sends them to sign in", async () => {
    const client = createQueryClient();
    const fetch = vi.fn(async () => json({ error: "You are not signed in" }, 401));
    vi.stubGlobal("fetch", fetch);
    client.setQueryData(userQuery.queryKey, member(["dashboard"]));
    const watching = new QueryObserver(client, userQuery).subscribe(() => {});
    await client.fetchQuery({ queryKey: ["codes"], queryFn: () => Promise.reject(new ApiError(401, "You are not signed in")) }).catch(() => {});
    await vi.waitFor(() => expect(client.getQueryData(userQuery.queryKey)).toBeNull());
    expect(fetch).toHaveBeenCalledTimes(1);
    // Signed out already (a wrong password on the sign-in screen): nothing to reload.
    await client.fetchQuery({ queryKey: ["login"], queryFn: () => Promise.reject(new ApiError(401, "Invalid username or password")) }).catch(() => {});
    await new Promise((r) => setTimeout(r, 20));
    expect(fetch).toHaveBeenCalledTimes(1);
    watching();
  });
});
