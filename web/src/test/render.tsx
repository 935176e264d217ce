import { QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { createQueryClient } from "@/app/query-client";
import { TooltipProvider } from "@/components/ui/tooltip";
import { userQuery, type CurrentUser } from "@/lib/auth";
import { dayInZone, reportTimeZoneQuery } from "@/lib/report-days";

/**
 * Renders with a query client that already knows who is signed in and the report time zone (UTC
 * unless given), so nothing waits on the network for them.
 */
export function renderWithUser(ui: ReactElement, user: CurrentUser | null, { timeZone = "UTC" }: { timeZone?: string } = {}) {
  const client = createQueryClient();
  client.setQueryData(userQuery.queryKey, user);
  client.setQueryData(reportTimeZoneQuery.queryKey, { timeZone, today: dayInZone(Date.now(), timeZone) });
  return {
    client,
    ...render(
      <QueryClientProvider client={client}>
        <TooltipProvider>{ui}</TooltipProvider>
      </QueryClientProvider>,
    ),
  };
}

export const member = (permissions: CurrentUser["permissions"] = []): CurrentUser => ({
  id: "00000000-0000-4000-8000-000000000001",
  username: "mia",
  role: "user",
  permissions,
  twoFactorEnabled: false,
  mustSetUpTwoFactor: false,
  accessKey: `member-${permissions.join(",")}`,
});

export const admin = (): CurrentUser => ({
  id: "00000000-0000-4000-8000-000000000002",
  username: "founder",
  role: "admin",
  permissions: [],
  twoFactorEnabled: false,
  mustSetUpTwoFactor: false,
  accessKey: "admin",
});
