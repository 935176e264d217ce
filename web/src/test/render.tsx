import { QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement, ReactNode } from "react";
import { createQueryClient } from "@/app/query-client";
import { userScopeQuery, type UserScope } from "@/components/scope-note";
import { TooltipProvider } from "@/components/ui/tooltip";
import { userQuery, type CurrentUser } from "@/lib/auth";
import { dayInZone, reportTimeZoneQuery } from "@/lib/report-days";

/**
 * Renders with a query client that already knows who is signed in, the report time zone (UTC
 * unless given) and, for a member, what their view is limited to (nothing assigned unless given),
 * so nothing waits on the network for them. The providers wrap `rerender` too.
 */
export function renderWithUser(
  ui: ReactElement,
  user: CurrentUser | null,
  { timeZone = "UTC", scope }: { timeZone?: string; scope?: Partial<Extract<UserScope, { scoped: true }>> } = {},
) {
  const client = createQueryClient();
  client.setQueryData(userQuery.queryKey, user);
  if (user?.role === "user") client.setQueryData(userScopeQuery.queryKey, { scoped: true, mediaBuyers: [], vcnNicknames: [], sparks: [], ...scope });
  client.setQueryData(reportTimeZoneQuery.queryKey, { timeZone, today: dayInZone(Date.now(), timeZone) });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>
      <TooltipProvider>{children}</TooltipProvider>
    </QueryClientProvider>
  );
  return { client, ...render(ui, { wrapper }) };
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
