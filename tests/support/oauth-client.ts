import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * The client side of account linking, as an MCP client does it: an OAuthClientProvider for the
 * official SDK's `auth()` (memory storage, a loopback redirect URI nobody listens on), and a real
 * Chromium that signs up or in and consents where the authorization URL leads, then hands back
 * the code the authorization server sent to the redirect URI.
 */

export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  readonly tokenHistory: OAuthTokens[] = [];

  constructor(readonly redirect: string, readonly name = "SDK test client") {}

  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    this.tokenHistory.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`No Chromium at ${candidates.join(", ")}: apt-get install chromium, or set CHROMIUM_PATH`);
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

export interface Person {
  email: string;
  password: string;
  name?: string;
}

/**
 * Follows `authorizationUrl` in a fresh browser context: creates the account (or signs in),
 * allows on the consent page, and returns the URL the browser was sent to at `redirectUri`
 * (with `code`, `state`, `iss`, or an `error`).
 */
export async function authorizeInBrowser(browser: Browser, authorizationUrl: URL, redirectUri: string, person: Person, options: { signUp: boolean; decision?: "Allow" | "Deny" }): Promise<URL> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // A dev server compiles each page on its first visit.
    page.setDefaultTimeout(90_000);
    let landed: string | undefined;
    await page.route(`${redirectUri}**`, async (route) => {
      landed = route.request().url();
      await route.fulfill({ status: 200, contentType: "text/plain", body: "back at the client" });
    });
    await page.goto(authorizationUrl.toString());
    await page.waitForURL(/\/auth\/sign-in/, { timeout: 60_000 });
    if (options.signUp) {
      await page.getByRole("link", { name: "Create an account" }).click();
      await page.waitForURL(/\/auth\/sign-up/);
      await page.getByLabel("Name").fill(person.name ?? "Test Person");
      await page.getByLabel("E-mail").fill(person.email);
      await page.getByLabel(/^Password/).fill(person.password);
      await page.getByRole("button", { name: "Create account" }).click();
    } else {
      await page.getByLabel("E-mail").fill(person.email);
      await page.getByLabel("Password").fill(person.password);
      await page.getByRole("button", { name: "Sign in" }).click();
    }
    await page.waitForURL((url) => url.pathname.startsWith("/auth/consent") || url.toString().startsWith(redirectUri), { timeout: 60_000 });
    if (!landed) {
      const alert = await page.getByRole("alert").textContent().catch(() => null);
      if (alert) throw new Error(`the consent page shows an error: ${alert}`);
      await page.getByRole("button", { name: options.decision ?? "Allow" }).click();
      await page.waitForURL((url) => url.toString().startsWith(redirectUri), { timeout: 60_000 });
    }
    if (!landed) throw new Error(`the browser never reached ${redirectUri}`);
    return new URL(landed);
  } finally {
    await context.close();
  }
}
