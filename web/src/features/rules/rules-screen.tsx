import { Plus, Workflow } from "lucide-react";
import { Link } from "react-router";
import { RulesTabs } from "@/components/rules-tabs";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { EmptyState, PageHeader } from "@/components/ui/page";
import { Switch } from "@/components/ui/switch";
import { QueryRows, Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { toastError } from "@/components/ui/toast";
import { useReportTime } from "@/lib/report-time";
import { describeCondition, describeWindow, RULE_SCOPE_LABELS } from "../../../../worker/src/schemas/rules";
import { useRules, useSwitchRule, type Rule } from "./api";

const scopeText = (r: Rule) => `${RULE_SCOPE_LABELS[r.scope.kind]}${r.scope.values.length ? ` (${r.scope.values.length})` : ""}`;
const actionText = (r: Rule) => (r.action === "actAndAlert" ? `${r.act === "pause" ? "Pause" : "Resume"} ad groups and alert` : "Alert only");

export default function RulesScreen() {
  const rules = useRules();
  const toggle = useSwitchRule();
  const { dateTime, timeZone } = useReportTime();
  return (
    <>
      <PageHeader
        title="Rules"
        description="Conditions the cron checks every 15 minutes over the stats' daily figures; a match alerts and can pause or resume TikTok ad groups."
        actions={
          <Button asChild>
            <Link to="/rules/new">
              <Plus /> New rule
            </Link>
          </Button>
        }
      />
      <RulesTabs />
      <Card>
        <CardContent className="pt-5">
          <Table phone="cards" scrollLabel="Rules">
            <TableHeader>
              <TableRow>
                <TableHead>Rule</TableHead>
                <TableHead>Scope</TableHead>
                <TableHead>When</TableHead>
                <TableHead>Action</TableHead>
                <TableHead>Last fired ({timeZone})</TableHead>
                <TableHead>Enabled</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              <QueryRows
                query={rules}
                rows={rules.data ?? []}
                colSpan={6}
                loading="Loading rules..."
                failed="Could not load the rules"
                emptyState={
                  <EmptyState icon={<Workflow />} title="No rules yet">
                    Create one to be alerted, or to pause an ad group, when its figures cross a line.
                  </EmptyState>
                }
              >
                {(r) => (
                  <TableRow key={r.id}>
                    <TableCell cardRole="title">
                      <Link to={`/rules/${r.id}`} className="font-medium text-brand-700 hover:underline">
                        {r.name}
                      </Link>
                    </TableCell>
                    <TableCell label="Scope">{scopeText(r)}</TableCell>
                    <TableCell label="When">
                      {r.conditions.map(describeCondition).join(" and ")} over {describeWindow(r.window)}
                      {r.guard ? `, once ${describeCondition(r.guard)}` : ""}
                    </TableCell>
                    <TableCell label="Action">{actionText(r)}</TableCell>
                    <TableCell label={`Last fired (${timeZone})`}>{r.lastFiredAt ? dateTime(r.lastFiredAt) : "Never"}</TableCell>
                    <TableCell cardRole="actions">
                      <Switch
                        checked={r.enabled}
                        aria-label={`${r.name} enabled`}
                        disabled={toggle.isPending}
                        onCheckedChange={(enabled) =>
                          toggle.mutate({ id: r.id, enabled }, { onError: (err) => toastError("Error", err, "Failed to switch the rule") })
                        }
                      />
                    </TableCell>
                  </TableRow>
                )}
              </QueryRows>
            </TableBody>
          </Table>
        </CardContent>
      </Card>
    </>
  );
}
