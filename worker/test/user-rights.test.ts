import { describe, expect, it } from "vitest";
import { ACCESS_KEY_HEADER } from "../src/auth/access-key";
import { bodyOf, call, client, makeAdmin, makeUser, reauthenticate } from "./helpers";

const keyOf = (res: { headers: Headers }) => res.headers.get(ACCESS_KEY_HEADER);

describe("the access key on every answer", () => {
  it("matches /api/user's, changes when an admin grants or removes a feature, and is on refusals too", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", ["dashboard"]);
    const me = await client(member).user.$get();
    const before = (await bodyOf(me, 200)).accessKey;
    expect(keyOf(me)).toBe(before);
    // Any answer carries it: a list, and a 403 the member gets for a feature they lack.
    expect(keyOf(await call("/api/codes", { cookie: member.cookie }))).toBe(before);
    const refused = await call("/api/clicks", { cookie: member.cookie });
    expect(refused.status).toBe(403);
    expect(keyOf(refused)).toBe(before);

    // Granting: the member's very next answer, whatever it is, says their user is stale.
    await bodyOf(await client(admin).users[":id"].permissions.$post({ param: { id: member.id }, json: { features: ["dashboard", "clicks"] } }), 200);
    const afterGrant = keyOf(await call("/api/codes", { cookie: member.cookie }));
    expect(afterGrant).not.toBe(before);
    const reloaded = await bodyOf(await client(member).user.$get(), 200);
    expect(reloaded.accessKey).toBe(afterGrant);
    expect(reloaded.permissions.sort()).toEqual(["clicks", "dashboard"]);

    // Removing brings the first key back: it is the rights, not a counter.
    await bodyOf(await client(admin).users[":id"].permissions.$post({ param: { id: member.id }, json: { features: ["dashboard"] } }), 200);
    expect(keyOf(await call("/api/codes", { cookie: member.cookie }))).toBe(before);

    // A role change counts too; another user's key is their own.
    await reauthenticate(admin);
    await bodyOf(await client(admin).users[":id"].role.$put({ param: { id: member.id }, json: { role: "admin" } }), 200);
    const promoted = keyOf(await call("/api/codes", { cookie: member.cookie }));
    expect(promoted).not.toBe(before);
    expect(keyOf(await call("/api/codes", { cookie: admin.cookie }))).not.toBe(promoted);
  });

  it("is absent when signed out", async () => {
    const res = await call("/api/user");
    expect(res.status).toBe(401);
    expect(keyOf(res)).toBeNull();
  });
});

describe("what scopes a member's view", () => {
  it("names a member's media buyers, cards and sparks; an admin is not scoped", async () => {
    const admin = await makeAdmin();
    const member = await makeUser("user", ["dashboard", "sparks"]);
    expect(await bodyOf(await client(member).user.scope.$get(), 200)).toEqual({ scoped: true, mediaBuyers: [], vcnNicknames: [], sparks: [] });

    const as = client(admin).users[":id"];
    const param = { id: member.id };
    await bodyOf(await as["media-buyers"].$post({ param, json: { subid1s: ["bob", "anna"] } }), 200);
    await bodyOf(await as["vcn-assignments"].$post({ param, json: { vcnNicknames: ["Ads card"] } }), 200);
    const spark = await bodyOf(await client(member).sparks.$post({ json: { name: "Quiz spark", code: "<!-- q -->" } }), 201);
    expect(await bodyOf(await client(member).user.scope.$get(), 200)).toEqual({
      scoped: true,
      mediaBuyers: ["anna", "bob"],
      vcnNicknames: ["Ads card"],
      sparks: [spark.name],
    });
    expect(await bodyOf(await client(admin).user.scope.$get(), 200)).toEqual({ scoped: false });
    expect((await call("/api/user/scope")).status).toBe(401);
  });
});
