/**
 * The columns of the virtual-card export (docs/integrations.md: Extend's 43-column layout) that we
 * store, each with the names a file may use for it: the real export's name first, then the
 * spec's shorter names and the screen's labels. Files re-saved by hand re-case and re-space
 * headers, so names compare without case, spaces or underscores ("AUTH  billing_amount" and
 * "authBillingAmount" both name `Auth Billing Amount`).
 */
export const STATEMENT_COLUMNS = {
  registeredCardLast4: ["Registered Card Last 4", "Card Last 4"],
  fundingSource: ["Funding Source"],
  typeOfAccount: ["Type of Account", "Account Type"],
  transactionDate: ["Transaction Date"],
  clearDate: ["Clear Date"],
  type: ["Type", "Transaction Type"],
  status: ["Status", "Transaction Status"],
  nameOnCard: ["Name On Card"],
  authBillingAmount: ["Authorization Billing Amount", "Auth Billing Amount", "Amount"],
  merchantName: ["Merchant Name", "Merchant"],
  merchantCity: ["Merchant City"],
  merchantState: ["Merchant State"],
  vcnNickname: ["VCN Nickname", "VCN"],
  vcnLast4: ["VCN Last 4"],
  referenceId: ["Reference Id", "Reference"],
} as const;

export type StatementColumn = keyof typeof STATEMENT_COLUMNS;

/** Without these a file is not an export at all (docs/product-rules.md): refused whole. */
export const REQUIRED_COLUMNS = ["registeredCardLast4", "status"] as const satisfies readonly StatementColumn[];

export const columnLabel = (column: StatementColumn) => STATEMENT_COLUMNS[column][0];

const normalizeHeader = (name: string) =>
  name
    .replace(/^\uFEFF/, "")
    .replace(/[\s_]+/g, "")
    .toLowerCase();

/**
 * Where each known column sits in a header row. When a file carries two names for one column
 * (the real name and an alias), the earlier name in the alias list wins; a repeated header uses
 * its first occurrence.
 */
export function locateColumns(header: readonly string[]) {
  const positions = new Map<string, number>();
  header.forEach((name, i) => {
    const key = normalizeHeader(name);
    if (key && !positions.has(key)) positions.set(key, i);
  });
  const located: Partial<Record<StatementColumn, number>> = {};
  for (const column of Object.keys(STATEMENT_COLUMNS) as StatementColumn[]) {
    for (const alias of STATEMENT_COLUMNS[column]) {
      const at = positions.get(normalizeHeader(alias));
      if (at !== undefined) {
        located[column] = at;
        break;
      }
    }
  }
  const missing = REQUIRED_COLUMNS.filter((c) => located[c] === undefined);
  return { located, missing };
}
