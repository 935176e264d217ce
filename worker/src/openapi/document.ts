/**
 * The OpenAPI 3.1 description of /api (docs/accounts-security.md "API keys"), served at
 * /api/openapi.json. Generated, not written: each operation's parameters and body are the very
 * zod schemas its route's `validate` middlewares check (read off the mounted routes,
 * lib/validate.ts `validationOf`), who may call it is the access table's entry, and the scope a
 * key needs is access.ts `keyResources`. Only the words (summary, tag, examples) come from
 * operations.ts, whose type lists every route of the table.
 */
import type { RouterRoute } from "hono/types";
import { COMPOSED_HANDLER } from "hono/utils/constants";
import { z, type ZodType } from "zod";
import { createDocument, type oas31, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from "zod-openapi";
import { ACCESS, keyResources, levelOf, type Access, type RouteKey } from "../access";
import { SESSION_COOKIE } from "../auth/session";
import { API_KEY_LIMIT_PER_MINUTE } from "../schemas/api-keys";
import { validationOf, type Validation } from "../lib/validate";
import type { ApiDescription } from "./description";
import { OPERATIONS, TAGS } from "./operations";

const BEARER = "bearerAuth";
const COOKIE = "cookieAuth";

/** The one error shape of every refusal (lib/errors.ts ApiErrorBody). */
const errorBody = z
  .object({
    error: z.string().meta({ description: "One sentence saying what is wrong, for a person to read." }),
    details: z.array(z.string()).optional().meta({ description: "For invalid input: one `field: message` line per problem." }),
    code: z.string().optional().meta({ description: "A machine-readable reason where there is one, e.g. `missing_scope`." }),
  })
  .meta({ id: "Error" });

const errorContent = (example: z.input<typeof errorBody>) => ({ "application/json": { schema: errorBody, example } });

const rateHeaderSchemas = {
  "X-RateLimit-Limit": { description: `Requests a key may make per minute (${API_KEY_LIMIT_PER_MINUTE}).`, schema: { type: "integer" } },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current minute, as counted where this answer was made: a hint, since a key's requests may reach other locations.",
    schema: { type: "integer" },
  },
  "X-RateLimit-Reset": { description: "Unix time (seconds) when the current minute's count starts again.", schema: { type: "integer" } },
} as const;
/** The X-RateLimit-* headers every answer to a key carries, as references to components.headers. */
const rateHeaders = Object.fromEntries(Object.keys(rateHeaderSchemas).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** The access table's rule, in words. */
function whoMayCall(access: Access): string {
  if (access === "public") return "Anyone, signed in or not.";
  if (access === "signed-in") return "Any signed-in user.";
  if (access === "admin") return "Admins only.";
  return `Admins, and members holding the ${access.feature.join(" or ")} feature${access.feature.length > 1 ? "s" : ""}.`;
}

/** The validations a route's handlers make, whether Hono composed them on mounting or not. */
function validationsFor(routes: readonly RouterRoute[], method: string, path: string): Validation[] {
  const found: Validation[] = [];
  for (const route of routes) {
    if (route.method !== method || route.path !== path) continue;
    const handler = route.handler as RouterRoute["handler"] & { [COMPOSED_HANDLER]?: object };
    const validation = validationOf(handler) ?? (handler[COMPOSED_HANDLER] ? validationOf(handler[COMPOSED_HANDLER]) : undefined);
    if (validation) found.push(validation);
  }
  return found;
}

type JsonSchema = { properties?: Record<string, JsonSchema>; required?: string[]; allOf?: JsonSchema[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[] } & Record<
  string,
  unknown
>;

/** The properties of an object schema, through the intersections and unions query schemas are built of. */
function propertiesOf(schema: JsonSchema): { properties: Record<string, JsonSchema>; required: Set<string> } {
  const properties: Record<string, JsonSchema> = { ...schema.properties };
  const required = new Set(schema.required ?? []);
  for (const part of schema.allOf ?? []) {
    const inner = propertiesOf(part);
    Object.assign(properties, inner.properties);
    inner.required.forEach((name) => required.add(name));
  }
  const alternatives = (schema.anyOf ?? schema.oneOf ?? []).map(propertiesOf);
  for (const alternative of alternatives) Object.assign(properties, alternative.properties);
  // Required only where every alternative requires it.
  for (const name of alternatives[0]?.required ?? []) if (alternatives.every((a) => a.required.has(name))) required.add(name);
  return { properties, required };
}

/**
 * A path or query schema as OpenAPI parameters. Rendered here rather than by zod-openapi's
 * `requestParams`, which takes plain objects only, and our query schemas are intersections and
 * refined objects; the JSON Schema is zod's own (z.toJSONSchema, the 2020-12 dialect of 3.1).
 */
function parametersOf(schema: ZodType, where: "path" | "query"): oas31.ParameterObject[] {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const { properties, required } = propertiesOf(json);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      in: where,
      name,
      required: where === "path" || required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      schema: rest as oas31.SchemaObject,
    };
  });
}

/** `GET /api/offers/:id/deletion-impact` → `getOffersByIdDeletionImpact`. */
const operationId = (key: RouteKey) => {
  const [method, path] = key.split(" ") as [string, string];
  const words = path
    .slice("/api/".length)
    .split(/[/.-]/)
    .map((part) => (part.startsWith(":") ? `by-${part.slice(1)}` : part))
    .flatMap((part) => part.split("-"));
  return method.toLowerCase() + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
};

/** `/api/offers/:id` → `/api/offers/{id}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

function operation(routes: readonly RouterRoute[], key: RouteKey, access: Access): ZodOpenApiOperationObject {
  const [method, path] = key.split(" ") as [string, string];
  const words = OPERATIONS[key];
  const validations = validationsFor(routes, method, path);
  const schemaFor = (target: Validation["target"]): ZodType | undefined => validations.find((v) => v.target === target)?.schema;
  const pathSchema = schemaFor("param");
  const querySchema = schemaFor("query");
  const bodySchema = schemaFor("json");

  const resources = keyResources(key, access);
  const scopes = resources.map((r) => `${r}:${levelOf(method)}`);
  const keyUsable = access === "public" || resources.length > 0;
  const security: Record<string, string[]>[] = access === "public" ? [] : keyUsable ? [{ [BEARER]: [] }, { [COOKIE]: [] }] : [{ [COOKIE]: [] }];

  const pathParams = pathSchema ? parametersOf(pathSchema, "path") : [];
  // Path parameters no schema checks (the route reads them as text) are still named.
  const looseParams = [...path.matchAll(/:([A-Za-z0-9_]+)/g)]
    .map((m) => m[1]!)
    .filter((name) => !pathParams.some((p) => p.name === name))
    .map((name): oas31.ParameterObject => ({ in: "path", name, required: true, schema: { type: "string" } }));
  const parameters = [...pathParams, ...looseParams, ...(querySchema ? parametersOf(querySchema, "query") : [])];

  const keyNote =
    access === "public"
      ? ""
      : resources.length === 0
        ? " API keys are refused here: sign in to the app."
        : ` With an API key: the scope ${scopes.join(" or ")}.`;
  const description = [words.description, `**Who may call it:** ${whoMayCall(access)}${keyNote}`].filter(Boolean).join("\n\n");

  const success = words.status ?? 200;
  const responses: ZodOpenApiOperationObject["responses"] = {
    [success]: {
      description: words.response?.description ?? "Done.",
      ...(words.response?.csv
        ? { content: { "text/csv": { schema: { type: "string" } } } }
        : words.response?.example !== undefined
          ? { content: { "application/json": { example: words.response.example } } }
          : { content: { "application/json": {} } }),
      ...(keyUsable && access !== "public" ? { headers: rateHeaders } : {}),
    },
  };
  if (validations.length) responses["400"] = { $ref: "#/components/responses/BadRequest" };
  if (access !== "public") {
    responses["401"] = { $ref: "#/components/responses/Unauthorized" };
    responses["403"] = { $ref: "#/components/responses/Forbidden" };
  }
  if (path.includes(":")) responses["404"] = { $ref: "#/components/responses/NotFound" };
  if (keyUsable && access !== "public") responses["429"] = { $ref: "#/components/responses/TooManyRequests" };

  return {
    operationId: operationId(key),
    summary: words.summary,
    description,
    tags: [TAGS[words.tag].name],
    security,
    "x-access": access,
    "x-api-key-scopes": scopes,
    ...(parameters.length ? { parameters } : {}),
    ...(bodySchema
      ? {
          requestBody: {
            required: !bodySchema.safeParse(undefined).success,
            content: { "application/json": { schema: bodySchema, ...(words.body !== undefined ? { example: words.body } : {}) } },
          },
        }
      : {}),
    responses,
  };
}

/** The document for the routes mounted under /api (their paths as Hono holds them, /api/...). */
export function openApiDocument(routes: readonly RouterRoute[]): ApiDescription {
  const paths: ZodOpenApiPathsObject = {};
  for (const [key, access] of Object.entries(ACCESS) as [RouteKey, Access][]) {
    const [method, path] = key.split(" ") as [string, string];
    const item = (paths[openApiPath(path)] ??= {});
    item[method.toLowerCase() as "get"] = operation(routes, key, access);
  }
  const document = createDocument({
    openapi: "3.1.0",
    info: {
      title: "Trackyard API",
      version: "1",
      description:
        "Every route of the app's own API. Call it as the app does, with the session cookie, or from a script with a personal API key " +
        "(Account → API keys) sent as `Authorization: Bearer ty_…`. A key acts as its owner, within its scopes: `read` allows GET, " +
        `\`write\` every method. Keys are limited to ${API_KEY_LIMIT_PER_MINUTE} requests a minute each; every answer to a key carries ` +
        "X-RateLimit-* headers, and a 429 says in Retry-After when to try again.",
    },
    tags: Object.values(TAGS),
    security: [{ [BEARER]: [] }, { [COOKIE]: [] }],
    paths,
    components: {
      headers: { ...rateHeaderSchemas, "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer" } } },
      securitySchemes: {
        [BEARER]: { type: "http", scheme: "bearer", description: "A personal API key, `ty_` and 43 characters, made on Account → API keys." },
        [COOKIE]: { type: "apiKey", in: "cookie", name: SESSION_COOKIE, description: "The session the app's sign-in sets." },
      },
      responses: {
        BadRequest: {
          description: "The input is not valid: `details` has one line per problem.",
          content: errorContent({ error: "Invalid request body: Name is required", details: ["name: Name is required", "url: URL is required"] }),
        },
        Unauthorized: {
          description: "Not signed in, or the API key is unknown, revoked, expired or malformed (the same answer for each).",
          content: errorContent({ error: "The API key is not valid: it is unknown, revoked, expired or malformed" }),
        },
        Forbidden: {
          description: "The caller's role or features do not allow it, or the API key lacks the scope, which the message names.",
          content: errorContent({ error: "This API key lacks the scope offers:write", code: "missing_scope" }),
        },
        NotFound: { description: "No such record.", content: errorContent({ error: "Not found" }) },
        TooManyRequests: {
          description: `The key made more than ${API_KEY_LIMIT_PER_MINUTE} requests this minute.`,
          headers: { "Retry-After": { $ref: "#/components/headers/Retry-After" }, ...rateHeaders },
          content: errorContent({ error: `Too many requests with this API key: at most ${API_KEY_LIMIT_PER_MINUTE} a minute` }),
        },
      },
    },
  });
  // The document as JSON types (description.ts): worker/test/openapi.test.ts checks the shape.
  return document as unknown as ApiDescription;
}
