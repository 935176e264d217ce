import { Hono, type ExecutionContext } from "hono";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import type { RouterRoute } from "hono/types";
import type { AppEnv } from "./env";
import { ApiError } from "./lib/errors";
import { withBootData } from "./lib/boot-data";
import { withRoutePreloads } from "./lib/route-preloads";
import { accessControl } from "./middleware/access-control";
import { appHostsOnly } from "./middleware/app-hosts";
import { database } from "./middleware/database";
import { requestGuards } from "./middleware/request-guards";
import { sessionUser } from "./middleware/session";
import { accountRoutes } from "./routes/account";
import { alertChannelRoutes } from "./routes/alert-channels";
import { apiKeyRoutes } from "./routes/api-keys";
import { auditRoutes } from "./routes/audit";
import { authRoutes } from "./routes/auth";
import { builtinAlertRoutes } from "./routes/builtin-alerts";
import { cakeRoutes } from "./routes/cake";
import { campaignRoutes } from "./routes/campaigns";
import { codeRoutes } from "./routes/codes";
import { clickRoutes } from "./routes/clicks";
import { domainRoutes } from "./routes/domains";
import { invoiceRoutes } from "./routes/invoices";
import { landerRoutes } from "./routes/landers";
import { notificationRoutes } from "./routes/notifications";
import { openApiRoutes } from "./routes/openapi";
import { offerRoutes } from "./routes/offers";
import { pathRoutes } from "./routes/paths";
import { splitTestRoutes } from "./routes/split-tests";
import { postbackRoutes } from "./routes/postback";
import { preferenceRoutes } from "./routes/preferences";
import { redeployWorkerRoutes } from "./routes/redeploy-worker";
import { ruleRoutes } from "./routes/rules";
import { settingsRoutes } from "./routes/settings";
import { statsRoutes } from "./routes/stats";
import { sparkRoutes } from "./routes/sparks";
import { syncRoutes } from "./routes/sync";
import { tiktokRoutes } from "./routes/tiktok";
import { tiktokEventsRoutes } from "./routes/tiktok-events";
import { trackingRoutes } from "./routes/tracking";
import { transactionRoutes } from "./routes/transactions";
import { userRoutes } from "./routes/users";
import { webhookRoutes } from "./routes/webhooks";

const api = new Hono<AppEnv>()
  .use(async (c, next) => {
    await next();
    // API answers are per-user and often secret (codes): never cache them anywhere.
    c.header("Cache-Control", "no-store");
  })
  .use(requestGuards, database, sessionUser, accessControl)
  .route("/", authRoutes)
  .route("/account", accountRoutes)
  .route("/api-keys", apiKeyRoutes)
  .route("/webhooks", webhookRoutes)
  .route("/users", userRoutes)
  .route("/settings", settingsRoutes)
  .route("/codes", codeRoutes)
  .route("/landers", landerRoutes)
  .route("/offers", offerRoutes)
  .route("/campaigns", campaignRoutes)
  .route("/campaigns", pathRoutes)
  .route("/campaigns", splitTestRoutes)
  .route("/sparks", sparkRoutes)
  .route("/clicks", clickRoutes)
  .route("/transactions", transactionRoutes)
  .route("/invoices", invoiceRoutes)
  .route("/sync", syncRoutes)
  .route("/cake", cakeRoutes)
  .route("/tiktok", tiktokRoutes)
  .route("/tiktok-events", tiktokEventsRoutes)
  .route("/stats", statsRoutes)
  .route("/user/preferences", preferenceRoutes)
  .route("/domains", domainRoutes)
  .route("/redeploy-worker", redeployWorkerRoutes)
  .route("/audit", auditRoutes)
  .route("/alert-channels", alertChannelRoutes)
  .route("/notifications", notificationRoutes)
  .route("/builtin-alerts", builtinAlertRoutes)
  .route("/rules", ruleRoutes)
  // The description of every route above, read off the app's routes once it is built.
  .route("/openapi.json", openApiRoutes(appRoutes));

/** Every route of the app, for its description (typed here: the app's own type cannot depend on itself). */
function appRoutes(): readonly RouterRoute[] {
  return app.routes;
}

/** An API call answered inside the Worker, as a browser's would be (the document's boot data: lib/boot-data.ts). */
async function ownCall(req: Request, env: AppEnv["Bindings"], ctx: ExecutionContext): Promise<Response> {
  return app.fetch(req, env, ctx);
}

/**
 * The app's page for a path that names no file: a screen's URL (/clicks, /offers?page=2) gets the
 * React app, which routes it. The asset server answers with no page of its own in its place
 * (wrangler.toml `not_found_handling = "none"`), so a tracking host never gets the app from it.
 */
async function appPage(assets: Fetcher, req: Request): Promise<Response> {
  const res = await assets.fetch(req);
  if (res.status !== 404 || (req.method !== "GET" && req.method !== "HEAD")) return res;
  return assets.fetch(new Request(new URL("/", req.url), { method: req.method, headers: req.headers }));
}

export const app = new Hono<AppEnv>()
  // Public tracking routes (/r/:id, /click, /exit-tracker.js): any host, no session or CSRF guard,
  // and ahead of the security-header middleware below: they set their own (routes/tracking.ts).
  .route("/", trackingRoutes)
  // Everything below answers on the app's own hosts only; on a tracking domain it is a plain 404.
  .use(appHostsOnly)
  .use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        // Radix and chart libraries position elements with inline style attributes.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
      strictTransportSecurity: "max-age=31536000; includeSubDomains",
      xContentTypeOptions: "nosniff",
      referrerPolicy: "strict-origin-when-cross-origin",
    }),
  )
  // The CAKE conversion postback: public, authenticated by its own secret token. On the app's hosts,
  // where the data sources card builds its URL: CAKE calls it server to server (no ad leads there),
  // and a tracking domain dropped or banned later would silently take the conversions with it.
  .route("/postback", postbackRoutes)
  .route("/api", api)
  .all("/api/*", () => {
    throw new ApiError(404, "Not found");
  })
  // Everything else is the React app: its page for any path that names no file (appPage), and the
  // few files outside /assets/ (the favicon). The build's /assets/* never reach the Worker
  // (wrangler.toml). The asset response is copied so the security headers above can be added to
  // it; a screen's document names the screen's chunks for the browser to fetch at once
  // (lib/route-preloads.ts), and a signed-in user's document brings the user and the report time
  // zone (lib/boot-data.ts).
  .all("*", async (c) => {
    const doc = await withRoutePreloads(c.env.ASSETS, c.req.raw, await appPage(c.env.ASSETS, c.req.raw));
    const res = await withBootData(c.req.raw, doc, (req) => ownCall(req, c.env, c.executionCtx));
    return new Response(res.body, res);
  });

app.onError((err, c) => {
  if (err instanceof ApiError) {
    return c.json(err.toBody(), err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    // Hono's own refusals (malformed JSON, ...) keep their status, in our error shape.
    const status = err.status;
    const message = status === 400 ? "The request body is not valid JSON" : err.message || "Request refused";
    return c.json({ error: message }, status);
  }
  console.error("unhandled error", c.req.method, c.req.path, err);
  return c.json({ error: "Something went wrong on our side. Please try again." }, 500);
});

export type AppType = typeof app;
