import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { COMPOSED_HANDLER } from "hono/utils/constants";
import { describe, expect, it } from "vitest";
import { ACCESS, decideKey, type Access, type RouteKey } from "../src/access";
import { app } from "../src/app";
import type { Bindings } from "../src/env";
import worker from "../src/index";
import { validationOf } from "../src/lib/validate";
import { OPERATIONS } from "../src/openapi/operations";
import { API_KEY_SCOPES } from "../src/schemas/api-keys";
import { bodyOf, call, client, makeAdmin, ORIGIN } from "./helpers";

interface Operation {
  operationId: string;
  summary: string;
  security: Record<string, string[]>[];
  "x-api-key-scopes": string[];
  requestBody?: { content: { "application/json": { schema: { required?: string[]; properties?: Record<string, unknown> }; example?: unknown } } };
  responses: Record<string, unknown>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> };
}

const fetchDocument = async () => {
  const res = await call("/api/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
};

const entries = Object.entries(ACCESS) as [RouteKey, Access][];
const operationOf = (doc: Document, key: RouteKey) => {
  const [method, path] = key.split(" ") as [string, string];
  return doc.paths[path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")]?.[method.toLowerCase()];
};
/** Whether a key is refused on a route whatever its scopes (the account, key and two-factor routes). */
const keyNeverWorks = (key: RouteKey, access: Access) => {
  const [method] = key.split(" ") as [string];
  const decision = decideKey(API_KEY_SCOPES, key, access, method);
  return !decision.allowed && decision.never;
};

/** The JSON body schema a route's own `validate("json", …)` checks, read off the mounted app. */
const bodySchemaOf = (key: RouteKey) => {
  const [method, path] = key.split(" ") as [string, string];
  for (const route of app.routes) {
    if (route.method !== method || route.path !== path) continue;
    const handler = route.handler as typeof route.handler & { [COMPOSED_HANDLER]?: object };
    const validation = validationOf(handler) ?? (handler[COMPOSED_HANDLER] ? validationOf(handler[COMPOSED_HANDLER]) : undefined);
    if (validation?.target === "json") return validation.schema;
  }
  return undefined;
};

describe("the OpenAPI description", () => {
  it("is served to anyone at /api/openapi.json as OpenAPI 3.1, every $ref resolving", async () => {
    const doc = await fetchDocument();
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBe("Trackyard API");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.cookieAuth).toMatchObject({ type: "apiKey", in: "cookie", name: "__Host-session" });

    const refs: string[] = [];
    const walk = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        for (const [k, v] of Object.entries(node)) {
          if (k === "$ref" && typeof v === "string") refs.push(v);
          else walk(v);
        }
      }
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref, ref).toMatch(/^#\//);
      const target = ref
        .slice(2)
        .split("/")
        .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
      expect(target, ref).toBeDefined();
    }
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("has every route of the access table, with the security that lets a caller in", async () => {
    const doc = await fetchDocument();
    for (const [key, access] of entries) {
      const op = operationOf(doc, key);
      expect(op, key).toBeDefined();
      expect(op!.summary, key).toBe(OPERATIONS[key].summary);
      if (access === "public") expect(op!.security, key).toEqual([]);
      else if (keyNeverWorks(key, access)) expect(op!.security, key).toEqual([{ cookieAuth: [] }]);
      else expect(op!.security, key).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
      if (access !== "public") expect(op!.responses, key).toMatchObject({ "401": {}, "403": {} });
      if (op!.security.some((s) => "bearerAuth" in s)) {
        expect(op!["x-api-key-scopes"].length, key).toBeGreaterThan(0);
        expect(op!.responses, key).toHaveProperty("429");
      }
    }
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented).toHaveLength(entries.length);
    expect(operationOf(doc, "POST /api/offers")!["x-api-key-scopes"]).toEqual(["offers:write"]);
    expect(operationOf(doc, "GET /api/offers")!["x-api-key-scopes"]).toEqual(["offers:read", "campaigns:read", "dashboard:read"]);
  });

  it("states the scope a key needs as the Worker checks it: a key with just that scope gets in, a cookie-only route refuses keys", async () => {
    const doc = await fetchDocument();
    const admin = await makeAdmin();
    const bearer = async (key: string, path: string) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(new Request(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${key}` } }), env as Bindings, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    for (const key of ["GET /api/landers", "GET /api/user/preferences", "GET /api/settings/report-time-zone", "GET /api/audit"] as const) {
      const [scope] = operationOf(doc, key)!["x-api-key-scopes"];
      const { key: token } = await bodyOf(
        await client(admin)["api-keys"].$post({ json: { name: key, scopes: [scope as (typeof API_KEY_SCOPES)[number]] } }),
        201,
      );
      const path = key.split(" ")[1]!;
      expect((await bearer(token, path)).status, key).toBe(200);
      // And a key with another resource's scope is refused, naming the documented one.
      const { key: other } = await bodyOf(await client(admin)["api-keys"].$post({ json: { name: "other", scopes: ["sparks:read"] } }), 201);
      const refused = await bearer(other, path);
      expect(refused.status, key).toBe(403);
      expect(((await refused.json()) as { error: string }).error, key).toContain(scope);
    }
    const { key: token } = await bodyOf(await client(admin)["api-keys"].$post({ json: { name: "all", scopes: [...API_KEY_SCOPES] } }), 201);
    expect(operationOf(doc, "GET /api/account/sessions")!.security).toEqual([{ cookieAuth: [] }]);
    expect((await bearer(token, "/api/account/sessions")).status).toBe(403);
    // The description itself is for keys too.
    expect((await bearer(token, "/api/openapi.json")).status).toBe(200);
  }, 60_000);

  it("gives every JSON body an example the route's own schema accepts", async () => {
    const doc = await fetchDocument();
    for (const [key] of entries) {
      const schema = bodySchemaOf(key);
      const op = operationOf(doc, key)!;
      if (!schema) {
        expect(op.requestBody, key).toBeUndefined();
        continue;
      }
      const example = op.requestBody?.content["application/json"].example;
      expect(example, key).toBeDefined();
      const parsed = schema.safeParse(example);
      expect(parsed.success, `${key}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it("describes POST /api/offers as the route takes it: its example is created, and each field it requires is refused when missing", async () => {
    const doc = await fetchDocument();
    const body = operationOf(doc, "POST /api/offers")!.requestBody!.content["application/json"];
    const admin = await makeAdmin();
    const created = await call("/api/offers", { cookie: admin.cookie, json: body.example });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject(body.example as object);

    expect(body.schema.required).toEqual(["name", "url"]);
    for (const field of body.schema.required!) {
      const { [field]: _left, ...without } = body.example as Record<string, unknown>;
      const refused = await call("/api/offers", { cookie: admin.cookie, json: without });
      expect(refused.status, field).toBe(400);
      expect(((await refused.json()) as { details?: string[]; error: string }).error, field).toMatch(/required/i);
    }
    // A field the description leaves optional may be left out.
    const { utmTemplate: _template, ...minimal } = body.example as Record<string, unknown>;
    expect(body.schema.required).not.toContain("utmTemplate");
    expect((await call("/api/offers", { cookie: admin.cookie, json: { ...minimal, name: "Minimal" } })).status).toBe(201);
  }, 30_000);
});
