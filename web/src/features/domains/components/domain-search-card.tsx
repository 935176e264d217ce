import { CheckCircle2, PlugZap, Search, ShoppingCart, XCircle } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { toast, toastError } from "@/components/ui/toast";
import { cn } from "@/lib/cn";
import { formatMoney } from "@/lib/format";
import { useSchemaForm } from "@/lib/schema-form";
import { domainBodySchema } from "../../../../../worker/src/schemas/domains";
import { useCheckDomain, usePurchaseDomain, useTestProxy, type CheckResult, type ProxyTest } from "../api";

interface Checked extends CheckResult {
  domain: string;
}

type ProxyOutcome = { ok: true; result: ProxyTest } | { ok: false; message: string };

/** Search a name, check it, buy it; and test the route to Namecheap. */
export function DomainSearchCard({ namecheapReady }: { namecheapReady: boolean }) {
  const form = useSchemaForm(domainBodySchema, { domain: "" });
  const error = form.formState.errors.domain?.message;
  const [result, setResult] = useState<Checked | null>(null);
  const [proxy, setProxy] = useState<ProxyOutcome | null>(null);
  const check = useCheckDomain();
  const purchase = usePurchaseDomain();
  const testProxy = useTestProxy();

  // A refused name clears the last answer: what is on screen is always about the name typed.
  const submit = form.handleSubmit(
    ({ domain }) =>
      check.mutate(domain, {
        onSuccess: (answer) => {
          setResult({ ...answer, domain });
          if (answer.available) toast({ title: "Domain available", description: answer.message });
          else toast({ title: "Domain not available", description: answer.message, variant: "destructive" });
        },
        onError: (err) => {
          setResult(null);
          toastError("Error checking domain", err, "Failed to check domain");
        },
      }),
    () => setResult(null),
  );

  // Buying spends money: the click only asks; the confirmation sends the price it showed.
  const [confirming, setConfirming] = useState(false);
  const buy = () => {
    if (!result?.price) return;
    purchase.mutate(
      { domain: result.domain, price: result.price },
      {
        onSuccess: (answer) => {
          setConfirming(false);
          if (answer.success) {
            toast({ title: "Domain purchased", description: answer.message });
            setResult(null);
            form.reset({ domain: "" });
          } else if (answer.pending) {
            toast({ title: "Purchase not confirmed yet", description: answer.message });
            setResult(null);
          } else {
            toast({ title: "Purchase failed", description: answer.message, variant: "destructive" });
          }
        },
        onError: (err) => {
          setConfirming(false);
          // A refusal (a price changed since the check, say) leaves a stale answer: check again.
          setResult(null);
          toastError("Error purchasing domain", err, "Failed to purchase domain");
        },
      },
    );
  };

  const runProxyTest = () =>
    testProxy.mutate(undefined, {
      onSuccess: (answer) => {
        setProxy({ ok: true, result: answer });
        toast({ title: "Proxy test successful", description: answer.message });
      },
      onError: (err) => {
        const message = err.message || "Could not reach Namecheap";
        setProxy({ ok: false, message });
        toastError("Proxy test failed", err, "Could not reach Namecheap");
      },
    });

  return (
    <Card>
      <CardHeader>
        <CardTitle icon={Search}>Find a Domain</CardTitle>
        <CardDescription>Check a name's availability and price at Namecheap, then buy it once you have confirmed the price.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form onSubmit={submit} noValidate className="grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-start">
          <Field label="Domain name" error={error} hint="Only .xyz domains are supported.">
            <Input {...form.register("domain")} placeholder="brightdeals.xyz" autoComplete="off" autoCapitalize="none" spellCheck={false} inputMode="url" />
          </Field>
          <Button type="submit" className="sm:mt-[1.625rem]" disabled={!namecheapReady || check.isPending}>
            <Search />
            {check.isPending ? "Checking..." : "Check Availability"}
          </Button>
          <Button type="button" variant="secondary" className="sm:mt-[1.625rem]" disabled={!namecheapReady || testProxy.isPending} onClick={runProxyTest}>
            <PlugZap />
            {testProxy.isPending ? "Testing..." : "Test Proxy"}
          </Button>
        </form>

        {proxy ? (
          <p role="status" className={cn("rounded-md px-3 py-2 text-sm", proxy.ok ? "bg-emerald-50 text-emerald-800" : "bg-danger-50 text-danger-700")}>
            {proxy.ok ? (
              <>
                Namecheap reachable: {proxy.result.route}
                {proxy.result.egressIp ? (
                  <>
                    {" "}
                    · egress IP <span className="font-mono font-medium">{proxy.result.egressIp}</span>
                  </>
                ) : null}
              </>
            ) : (
              proxy.message
            )}
          </p>
        ) : null}

        {result ? <CheckOutcome result={result} buying={purchase.isPending} onBuy={() => setConfirming(true)} /> : null}
      </CardContent>
      <ConfirmDialog
        open={confirming && result !== null}
        onOpenChange={(open) => !open && !purchase.isPending && setConfirming(false)}
        title={`Buy ${result?.domain ?? "this domain"}?`}
        description={result ? <PurchaseTerms result={result} /> : null}
        confirmLabel={purchase.isPending ? "Purchasing..." : `Buy for ${formatMoney(result?.price)}`}
        confirmVariant="primary"
        busy={purchase.isPending}
        onConfirm={buy}
      />
    </Card>
  );
}

/** What the confirmation says before any money is spent: the name, what is charged now, what it renews at. */
function PurchaseTerms({ result }: { result: Checked }) {
  return (
    <>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-md bg-slate-50 px-3 py-2">
        <dt className="text-slate-500">Domain</dt>
        <dd className="break-all font-medium text-slate-900">{result.domain}</dd>
        <dt className="text-slate-500">{result.premium ? "Premium price" : "Price"}</dt>
        <dd className="tabular font-semibold text-slate-900">{formatMoney(result.price)} for the first year</dd>
        <dt className="text-slate-500">Renewal</dt>
        <dd className="tabular text-slate-900">
          {result.renewalPrice ? `${formatMoney(result.renewalPrice)} a year after that` : "not known: check it at Namecheap"}
        </dd>
      </dl>
      <p>
        Namecheap charges {formatMoney(result.price)} to your account now (ICANN fee included), for one year with free WHOIS privacy. A purchase cannot be
        undone. If the price has changed by the time you confirm, nothing is bought.
      </p>
    </>
  );
}

function CheckOutcome({ result, buying, onBuy }: { result: Checked; buying: boolean; onBuy(): void }) {
  const Icon = result.available ? CheckCircle2 : XCircle;
  return (
    <section
      aria-label={`Result for ${result.domain}`}
      className={cn(
        "flex flex-col gap-4 rounded-lg border p-4 sm:flex-row sm:items-center sm:justify-between",
        result.available ? "border-emerald-200 bg-emerald-50/60" : "border-danger-200 bg-danger-50/60",
      )}
    >
      <div className="flex min-w-0 items-start gap-3">
        <Icon className={cn("mt-0.5 size-5 shrink-0", result.available ? "text-emerald-600" : "text-danger-600")} aria-hidden="true" />
        <div className="min-w-0">
          <p className="break-all font-semibold text-slate-900">
            {result.domain} <span className="font-normal text-slate-600">{result.available ? "is available" : "cannot be bought"}</span>
          </p>
          {result.price !== null ? (
            <p className="mt-1 text-sm text-slate-700">
              {result.premium ? "Premium Price:" : "Price:"} <span className="tabular font-semibold">{formatMoney(result.price)}</span>
              <span className="text-slate-500"> first year</span>
              {result.renewalPrice ? (
                <span className="text-slate-500">
                  {" "}
                  · renews at <span className="tabular">{formatMoney(result.renewalPrice)}</span>/year
                </span>
              ) : null}
            </p>
          ) : null}
          {/* Refused: the reason; bought under the rules: the limit it was held to. */}
          {result.available ? null : <p className="mt-1 text-sm text-slate-700">{result.message}</p>}
          {result.refusal === "above_max" ? null : (
            <p className="mt-1 text-xs text-slate-500">
              Maximum Domain Price: <span className="tabular">{formatMoney(result.maxPrice)}</span> (Settings)
            </p>
          )}
        </div>
      </div>
      {result.available ? (
        <Button onClick={onBuy} disabled={buying} className="self-start sm:self-center">
          <ShoppingCart />
          {buying ? "Purchasing..." : "Purchase Domain"}
        </Button>
      ) : null}
    </section>
  );
}
