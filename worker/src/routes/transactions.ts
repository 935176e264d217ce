import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import type { z } from "zod";
import { audit } from "../audit/record";
import { importStatement } from "../billing/import-statement";
import { readFormFile } from "../billing/upload-form";
import { listTransactions, vcnLast4Choices, vcnSpendSummary, type Viewer } from "../db/queries/transactions";
import type { transactions } from "../db/schema";
import type { AppEnv, SessionUser } from "../env";
import { ApiError } from "../lib/errors";
import { formatCents, formatCentsOrNull, parseCents } from "../lib/money";
import { iso } from "../lib/time";
import { invalidInput, validate } from "../lib/validate";
import { statementUploadSchema, TRANSACTIONS_PAGE_SIZE, transactionListQuerySchema, vcnSummaryQuerySchema } from "../schemas/transactions";

/** Access control already refused anonymous callers; this only narrows the type. */
function viewerOf(user: SessionUser | null): Viewer {
  if (!user) throw new ApiError(401, "You are not signed in");
  return user.role === "admin" ? { role: "admin" } : { role: "user", id: user.id };
}

const transactionJson = ({ authBillingAmountCents, dedupeKey: _key, uploadedAt, ...t }: typeof transactions.$inferSelect) => ({
  ...t,
  authBillingAmount: formatCentsOrNull(authBillingAmountCents),
  uploadedAt: iso(uploadedAt),
});

const figure = (count: number, cents: number) => ({ count, amount: formatCents(cents) });

/**
 * The upload's form as the typed client sends it (`form: { file }`). Only its type: the handler
 * reads the body itself, as a stream (billing/upload-form.ts), since parsing the form first would
 * hold the whole file in memory.
 */
const statementForm = createMiddleware<AppEnv, string, { in: { form: z.input<typeof statementUploadSchema> } }>((_c, next) => next());

export const transactionRoutes = new Hono<AppEnv>()
  .post("/upload", statementForm, async (c) => {
    const upload = await readFormFile(c.req.raw, "file");
    // The form's rules (a file, named .csv) checked on the part's name before any of its bytes are read.
    const form = statementUploadSchema.safeParse({ file: upload && new File([], upload.name) });
    if (!form.success) throw invalidInput("form", form.error);
    // The schema refused a form without the file.
    const { name, content } = upload!;
    const result = await importStatement(c.get("db"), content, {
      alongside: (n) => [
        audit(c, {
          action: "statement.upload",
          kind: "statement",
          id: name.slice(0, 120),
          summary: `${n.clearedCount} cleared, ${n.pendingDeclinedCount} pending or declined, ${n.duplicateCount} duplicates, ${n.errorCount} rows refused`,
        }),
      ],
    });
    return c.json(result, 200);
  })

  .get("/", validate("query", transactionListQuerySchema), async (c) => {
    const { status, vcnLast4, minAmount, maxAmount, page } = c.req.valid("query");
    const { rows, totals } = await listTransactions(
      c.get("db"),
      viewerOf(c.get("user")),
      {
        status,
        vcnLast4,
        // The schema admits only decimal text, which always converts.
        minCents: minAmount === undefined ? undefined : (parseCents(minAmount) ?? undefined),
        maxCents: maxAmount === undefined ? undefined : (parseCents(maxAmount) ?? undefined),
      },
      page,
    );
    return c.json(
      {
        transactions: rows.map(transactionJson),
        page,
        pageSize: TRANSACTIONS_PAGE_SIZE,
        totalRows: totals.rows,
        pageCount: Math.max(1, Math.ceil(totals.rows / TRANSACTIONS_PAGE_SIZE)),
        summary: {
          total: figure(totals.totalCount, totals.totalCents),
          pending: figure(totals.pendingCount, totals.pendingCents),
          cleared: figure(totals.clearedCount, totals.clearedCents),
          declined: figure(totals.declinedCount, totals.declinedCents),
        },
      },
      200,
    );
  })

  .get("/vcn-summary", validate("query", vcnSummaryQuerySchema), async (c) => {
    const groups = await vcnSpendSummary(c.get("db"), viewerOf(c.get("user")), c.req.valid("query"));
    const total = groups.reduce((sum, g) => ({ n: sum.n + g.transactions, cents: sum.cents + g.spendCents }), { n: 0, cents: 0 });
    return c.json(
      {
        rows: groups.map((g) => ({
          vcnNickname: g.vcnNickname,
          transactions: g.transactions,
          totalSpend: formatCents(g.spendCents),
        })),
        total: { transactions: total.n, totalSpend: formatCents(total.cents) },
      },
      200,
    );
  })

  .get("/vcn-last4", async (c) => c.json({ values: await vcnLast4Choices(c.get("db"), viewerOf(c.get("user"))) }, 200));
