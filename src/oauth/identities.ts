import { randomUUID } from 'node:crypto';
import type { AccountStore } from '../ports/account-store.ts';
import type { OAuthStore } from './store.ts';

export interface UpstreamUser {
  /** The provider's issuer identifier. */
  issuer: string;
  /** The provider's stable user ID (`sub`; for Cognito, the user pool's sub). */
  subject: string;
  /** A display name for a new account (email or user name); not used to find the account. */
  name: string;
}

/**
 * The account an upstream identity signs in to. On the first sign-in a new account is created (with
 * no API key) and linked; the link is a conditional write, so two concurrent first sign-ins end on one
 * account (the loser's fresh account stays unused).
 */
export async function accountForIdentity(
  store: OAuthStore,
  accounts: AccountStore,
  user: UpstreamUser,
  now: number,
): Promise<string> {
  const existing = await store.getIdentity(user.issuer, user.subject);
  if (existing) return existing.account_id;
  const account = { account_id: randomUUID(), name: user.name.slice(0, 100), created_at: now };
  await accounts.createAccount(account);
  const link = await store.linkIdentity({
    issuer: user.issuer,
    subject: user.subject,
    account_id: account.account_id,
    created_at: now,
  });
  return link.account_id;
}
