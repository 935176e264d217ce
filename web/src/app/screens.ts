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
  Settings2,
  Sparkles,
  Tag,
  Users,
  type LucideIcon,
} from "lucide-react";
import type { QueryClient } from "@tanstack/react-query";
import type { ComponentType } from "react";
import { can, isAdmin, type CurrentUser, type Feature } from "@/lib/auth";

export type Requirement = { feature: Feature[] } | "admin" | "signed-in";

export interface Screen {
  path: string;
  /** The sidebar label. */
  label: string;
  icon: LucideIcon;
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
    requires: { feature: ["dashboard"] },
    load: () => import("@/features/stats/stats-screen"),
    prefetch: () => import("@/features/stats/prefetch"),
  },
  {
    path: "/offers",
    label: "Offers",
    icon: ChartColumn,
    requires: { feature: ["offers", "performance"] },
    load: () => import("@/features/offers/offers-screen"),
  },
  { path: "/offer-config", label: "Offer Config", icon: Tag, requires: "admin", load: () => import("@/features/offer-config/offer-config-screen") },
  {
    path: "/campaigns",
    label: "Campaigns",
    icon: Megaphone,
    requires: { feature: ["campaigns"] },
    load: () => import("@/features/campaigns/campaigns-screen"),
  },
  { path: "/landers", label: "Landers", icon: PanelsTopLeft, requires: { feature: ["landers"] }, load: () => import("@/features/landers/landers-screen") },
  {
    path: "/clicks",
    label: "Click Log",
    icon: MousePointerClick,
    requires: { feature: ["clicks"] },
    load: () => import("@/features/clicks/clicks-screen"),
    prefetch: () => import("@/features/clicks/prefetch"),
  },
  { path: "/sparks", label: "Sparks", icon: Sparkles, requires: { feature: ["sparks"] }, load: () => import("@/features/sparks/sparks-screen") },
  { path: "/codes", label: "Codes", icon: KeyRound, requires: "signed-in", load: () => import("@/features/codes/codes-screen") },
  { path: "/billing", label: "Transactions", icon: CreditCard, requires: "signed-in", load: () => import("@/features/billing/billing-screen") },
  { path: "/invoicing", label: "Invoicing", icon: FileText, requires: "admin", load: () => import("@/features/invoicing/invoicing-screen") },
  { path: "/domains", label: "Domains", icon: Globe, requires: "admin", load: () => import("@/features/domains/domains-screen") },
  { path: "/users", label: "Users", icon: Users, requires: "admin", load: () => import("@/features/users/users-screen") },
  { path: "/settings", label: "Settings", icon: Settings2, requires: "admin", load: () => import("@/features/settings/settings-screen") },
  { path: "/audit", label: "Audit Log", icon: ScrollText, requires: "admin", load: () => import("@/features/audit/audit-screen") },
  { path: "/account", label: "Account", icon: CircleUserRound, requires: "signed-in", load: () => import("@/features/account/account-screen") },
];

export function allows(user: CurrentUser | null | undefined, requires: Requirement) {
  if (!user) return false;
  if (requires === "signed-in") return true;
  if (requires === "admin") return isAdmin(user);
  return requires.feature.some((f) => can(user, f));
}
