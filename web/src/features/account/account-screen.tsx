import { PageHeader } from "@/components/ui/page";
import { useUser } from "@/lib/auth";
import { ApiKeysCard } from "./components/api-keys-card";
import { PasswordCard } from "./components/password-card";
import { SessionsCard } from "./components/sessions-card";
import { TwoFactorCard } from "./components/two-factor-card";
import { WebhooksCard } from "./components/webhooks-card";

/** /account: the signed-in user's own password, two-factor sign-in, sessions, API keys and webhooks. */
export default function AccountScreen() {
  const { data: user } = useUser();
  const mustSetUp = user?.mustSetUpTwoFactor === true;
  return (
    <>
      <PageHeader title="Account" description={user ? `Signed in as ${user.username}${user.role === "admin" ? " (Admin)" : ""}` : undefined} />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[3fr_2fr] lg:items-start">
        <div className="grid gap-6">
          <TwoFactorCard required={mustSetUp} />
          {mustSetUp ? null : <SessionsCard />}
          {mustSetUp ? null : <ApiKeysCard />}
          {mustSetUp ? null : <WebhooksCard />}
        </div>
        {mustSetUp ? null : <PasswordCard />}
      </div>
    </>
  );
}
