import {
  ChartColumn,
  CircleUserRound,
  CreditCard,
  FileText,
  Globe,
  KeyRound,
  LayoutDashboard,
  Megaphone,
  MousePointerClick,
  PanelsTopLeft,
  ScrollText,
  Workflow,
  Settings2,
  Sparkles,
  Tag,
  Users,
  type LucideIcon,
} from "lucide-react";
import type { QueryClient } from "@tanstack/react-query";
import type { ComponentType } from "react";
import { can, isAdmin, type CurrentUser, type Feature } from "@/lib/auth";
import { SCREEN_ACCESS, type ScreenPath } from "../../../worker/src/access-rules";

export type Requirement = { feature: Feature[] } | "admin" | "signed-in";

export interface Screen {
  path: ScreenPath;
  /** The sidebar label. */
  label: string;
  icon: LucideIcon;
  /** Who may open it: the API's access rules (worker/src/access-rules.ts), not a copy. */
  requires: Requirement;
  /** Loaded lazily so the sign-in screen stays small. */
  load: () => Promise<{ default: ComponentType }>;
  /**
   * The screen's first query, started by the route's loader from the URL while the screen's code
   * loads, instead of after it (loaded lazily too: it carries the screen's schemas).
   */
  prefetch?: () => Promise<{ prefetch(client: QueryClient, url: URL): Promise<void> }>;
}

/**
 * Every screen behind the sign-in, in sidebar order (docs/screens.md §2, docs/product-rules.md). The router and the
 * sidebar both read this list, so a screen exists in both or in neither.
 */
export const SCREENS: Screen[] = [
  {
    path: "/",
    label: "Dashboard",
    icon: LayoutDashboard,
    requires: SCREEN_ACCESS["/"],
    load: () => import("@/features/stats/stats-screen"),
    prefetch: () => import("@/features/stats/prefetch"),
  },
  {
    path: "/offers",
    label: "Offers",
    icon: ChartColumn,
    requires: SCREEN_ACCESS["/offers"],
    load: () => import("@/features/offers/offers-screen"),
  },
  {
    path: "/offer-config",
    label: "Offer Config",
    icon: Tag,
    requires: SCREEN_ACCESS["/offer-config"],
    load: () => import("@/features/offer-config/offer-config-screen"),
  },
  {
    path: "/campaigns",
    label: "Campaigns",
    icon: Megaphone,
    requires: SCREEN_ACCESS["/campaigns"],
    load: () => import("@/features/campaigns/campaigns-screen"),
  },
  { path: "/landers", label: "Landers", icon: PanelsTopLeft, requires: SCREEN_ACCESS["/landers"], load: () => import("@/features/landers/landers-screen") },
  {
    path: "/clicks",
    label: "Click Log",
    icon: MousePointerClick,
    requires: SCREEN_ACCESS["/clicks"],
    load: () => import("@/features/clicks/clicks-screen"),
    prefetch: () => import("@/features/clicks/prefetch"),
  },
  { path: "/sparks", label: "Sparks", icon: Sparkles, requires: SCREEN_ACCESS["/sparks"], load: () => import("@/features/sparks/sparks-screen") },
  { path: "/codes", label: "Codes", icon: KeyRound, requires: SCREEN_ACCESS["/codes"], load: () => import("@/features/codes/codes-screen") },
  {
    path: "/billing",
    label: "Transactions",
    icon: CreditCard,
    requires: SCREEN_ACCESS["/billing"],
    load: () => import("@/features/billing/billing-screen"),
    prefetch: () => import("@/features/billing/prefetch"),
  },
  {
    path: "/invoicing",
    label: "Invoicing",
    icon: FileText,
    requires: SCREEN_ACCESS["/invoicing"],
    load: () => import("@/features/invoicing/invoicing-screen"),
  },
  { path: "/domains", label: "Domains", icon: Globe, requires: SCREEN_ACCESS["/domains"], load: () => import("@/features/domains/domains-screen") },
  { path: "/users", label: "Users", icon: Users, requires: SCREEN_ACCESS["/users"], load: () => import("@/features/users/users-screen") },
  { path: "/settings", label: "Settings", icon: Settings2, requires: SCREEN_ACCESS["/settings"], load: () => import("@/features/settings/settings-screen") },
  { path: "/rules", label: "Rules", icon: Workflow, requires: SCREEN_ACCESS["/rules"], load: () => import("@/features/rules/rules-screen") },
  { path: "/audit", label: "Audit Log", icon: ScrollText, requires: SCREEN_ACCESS["/audit"], load: () => import("@/features/audit/audit-screen") },
  { path: "/account", label: "Account", icon: CircleUserRound, requires: SCREEN_ACCESS["/account"], load: () => import("@/features/account/account-screen") },
];

export function allows(user: CurrentUser | null | undefined, requires: Requirement) {
  if (!user) return false;
  if (requires === "signed-in") return true;
  if (requires === "admin") return isAdmin(user);
  return requires.feature.some((f) => can(user, f));
}
