import { QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { createQueryClient } from "@/app/query-client";
import { TooltipProvider } from "@/components/ui/tooltip";
import { userQuery, type CurrentUser } from "@/lib/auth";

/** Renders with a query client that already knows who is signed in (no network). */
export function renderWithUser(ui: ReactElement, user: CurrentUser | null) {
  const client = createQueryClient();
  client.setQueryData(userQuery.queryKey, user);
  return { client, ...render(<QueryClientProvider client={client}><TooltipProvider>{ui}</TooltipProvider></QueryClientProvider>) };
}

export const member = (permissions: CurrentUser["permissions"] = []): CurrentUser => ({
  id: "00000000-0000-4000-8000-000000000001",
  username: "mia",
  role: "user",
  permissions,
  twoFactorEnabled: false,
  mustSetUpTwoFactor: false,
});

export const admin = (): CurrentUser => ({
  id: "00000000-0000-4000-8000-000000000002",
  username: "founder",
  role: "admin",
  permissions: [],
  twoFactorEnabled: false,
  mustSetUpTwoFactor: false,
});
