import { useQuery } from "@tanstack/react-query";
import { Eye, EyeOff, KeyRound, ShieldCheck } from "lucide-react";
import { useState, type FormEvent } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { FullPageSpinner } from "@/components/ui/spinner";
import { toastError } from "@/components/ui/toast";
import { ApiError } from "@/lib/api";
import {
  homePath,
  needsSecondFactor,
  RETURN_PARAM,
  safeReturnPath,
  setupQuery,
  useLogin,
  useRegister,
  useSecondFactor,
  useUser,
  type CurrentUser,
} from "@/lib/auth";

function PasswordInput(props: { value: string; onChange(v: string): void; autoComplete: string; id?: string }) {
  const [visible, setVisible] = useState(false);
  const { value, onChange, autoComplete, ...rest } = props;
  return (
    <div className="relative">
      <Input
        {...rest}
        type={visible ? "text" : "password"}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoComplete={autoComplete}
        required
        className="pr-10"
      />
      <button
        type="button"
        onClick={() => setVisible((v) => !v)}
        aria-label={visible ? "Hide password" : "Show password"}
        aria-pressed={visible}
        className="absolute inset-y-0 right-0 flex w-10 items-center justify-center text-slate-500 hover:text-slate-800"
      >
        {visible ? <EyeOff className="size-4" /> : <Eye className="size-4" />}
      </button>
    </div>
  );
}

/**
 * The second step when two-factor sign-in is on: the app's 6-digit code, or one of the recovery
 * codes. `onRestart` goes back to the password (the waiting sign-in lasts 5 minutes).
 */
function SecondFactorForm({ onSignedIn, onRestart }: { onSignedIn(user: CurrentUser): void; onRestart(): void }) {
  const verify = useSecondFactor();
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState("");
  const [error, setError] = useState<string>();

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const value = code.trim();
    if (!value) {
      setError(recovery ? "Enter one of your recovery codes" : "Enter the 6-digit code from your app");
      return;
    }
    setError(undefined);
    verify.mutate(value, {
      onSuccess: onSignedIn,
      onError: (err) => {
        setCode("");
        toastError("Sign-in failed", err, "Sign-in failed");
        setError(err.message);
      },
    });
  };

  return (
    <form className="grid gap-4" onSubmit={onSubmit} noValidate>
      <Field
        label={recovery ? "Recovery code" : "Authentication code"}
        error={error}
        hint={
          recovery
            ? "One of the ten codes you saved when you turned on two-factor sign-in; each works once."
            : "The 6-digit code your authenticator app shows for Trackyard."
        }
      >
        <Input
          key={recovery ? "recovery" : "totp"}
          value={code}
          onChange={(e) => setCode(e.target.value)}
          autoComplete="one-time-code"
          inputMode={recovery ? "text" : "numeric"}
          placeholder={recovery ? "xxxxx-xxxxx" : "123456"}
          maxLength={recovery ? 16 : 7}
          autoFocus
          className="tabular tracking-widest"
        />
      </Field>
      <Button type="submit" disabled={verify.isPending} className="w-full">
        {verify.isPending ? "Verifying..." : "Verify"}
      </Button>
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <button
          type="button"
          className="font-medium text-brand-700 hover:underline"
          onClick={() => {
            setRecovery((r) => !r);
            setCode("");
            setError(undefined);
          }}
        >
          {recovery ? "Use the code from my app" : "Use a recovery code"}
        </button>
        <button type="button" className="text-slate-500 hover:text-slate-800 hover:underline" onClick={onRestart}>
          Start over
        </button>
      </div>
    </form>
  );
}

/** /auth: sign in, or create the first admin when the workspace has no users yet. */
export default function LoginScreen() {
  const { data: user, isPending } = useUser();
  const setup = useQuery(setupQuery);
  const login = useLogin();
  const register = useRegister();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [setupToken, setSetupToken] = useState("");
  const [errors, setErrors] = useState<{ username?: string; password?: string; setupToken?: string }>({});
  const [step, setStep] = useState<"password" | "code">("password");

  // Once signed in (the password, the second step or the first-admin form): the page a signed-out
  // visit asked for, if it is one of ours, else home. Every way here goes to the same place: the
  // screen re-rendering with the user and the sign-in call's answer both navigate, and when they
  // disagreed the later one (home) won and a shared link's filters were lost.
  const destination = (u: CurrentUser) => safeReturnPath(search.get(RETURN_PARAM)) ?? homePath(u);
  const landOn = (u: CurrentUser) => navigate(destination(u), { replace: true });

  if (isPending) return <FullPageSpinner />;
  if (user) return <Navigate to={destination(user)} replace />;

  const creating = setup.data?.needsSetup === true;
  // A deployment with a SETUP_TOKEN secret asks for it with the first admin (docs/operations.md "Deploying to Cloudflare").
  const withToken = creating && setup.data?.needsSetupToken === true;
  const busy = login.isPending || register.isPending;

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (creating) {
      // zod loads only for the one-time setup, keeping it out of the everyday sign-in bundle.
      const { registerSchema } = await import("../../../../worker/src/schemas/auth");
      const parsed = registerSchema.safeParse({ username, password, ...(withToken ? { setupToken } : {}) });
      if (!parsed.success || (withToken && !setupToken.trim())) {
        const next: typeof errors = withToken && !setupToken.trim() ? { setupToken: "Enter the setup token" } : {};
        for (const issue of parsed.error?.issues ?? []) next[issue.path[0] as "username" | "password" | "setupToken"] ??= issue.message;
        setErrors(next);
        return;
      }
      setErrors({});
      register.mutate(parsed.data, {
        onSuccess: landOn,
        onError: (err) => {
          if (err instanceof ApiError && err.details.some((d) => d.startsWith("setupToken: "))) setErrors({ setupToken: "The setup token is not right" });
          toastError("Registration failed", err, "Registration failed");
        },
      });
      return;
    }
    setErrors({
      username: username.trim() ? undefined : "Username is required",
      password: password ? undefined : "Password is required",
    });
    if (!username.trim() || !password) return;
    login.mutate(
      { username, password },
      {
        onSuccess: (answer) => {
          if (needsSecondFactor(answer)) {
            setPassword("");
            setStep("code");
          } else landOn(answer);
        },
        onError: (err) => toastError("Login failed", err, "Login failed"),
      },
    );
  };

  return (
    <main className="flex min-h-dvh items-center justify-center bg-gradient-to-br from-slate-50 via-white to-brand-50 px-4 py-12">
      <Card className="w-full max-w-sm p-8">
        <div className="mb-6 flex flex-col items-center gap-3 text-center">
          <div className="rounded-xl bg-brand-700 p-3 text-white">
            {step === "code" ? <ShieldCheck className="size-6" aria-hidden="true" /> : <KeyRound className="size-6" aria-hidden="true" />}
          </div>
          <div>
            <h1 className="text-xl font-semibold text-slate-900">{step === "code" ? "Two-factor sign-in" : "Trackyard"}</h1>
            <p className="mt-1 text-sm text-slate-500">
              {step === "code"
                ? `Signing in as ${username.trim()}`
                : creating
                  ? "Create the first admin account"
                  : "Sign in to monitor your verification codes"}
            </p>
          </div>
        </div>
        {step === "code" ? (
          <SecondFactorForm onSignedIn={landOn} onRestart={() => setStep("password")} />
        ) : (
          <form className="grid gap-4" onSubmit={onSubmit} noValidate>
            <Field label="Username" error={errors.username}>
              <Input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="username" autoFocus required maxLength={64} />
            </Field>
            <Field label="Password" error={errors.password} hint={creating ? "At least 8 characters" : undefined}>
              <PasswordInput value={password} onChange={setPassword} autoComplete={creating ? "new-password" : "current-password"} />
            </Field>
            {withToken ? (
              <Field label="Setup token" error={errors.setupToken} hint="The SETUP_TOKEN secret set when this Worker was deployed">
                <PasswordInput value={setupToken} onChange={setSetupToken} autoComplete="off" />
              </Field>
            ) : null}
            <Button type="submit" disabled={busy} className="mt-2 w-full">
              {creating ? (register.isPending ? "Creating account..." : "Create admin account") : busy ? "Signing in..." : "Sign In"}
            </Button>
          </form>
        )}
      </Card>
    </main>
  );
}
