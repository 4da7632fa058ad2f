import type { IncomingMessage } from 'node:http';
import { readCookie, setCookie } from './cookies.js';
import { derivedKey, openSignedValue, signValue } from './signed-value.js';

/** Only the sign-in's own two URLs receive it. */
const FLOW_COOKIE = 'switchyard_signin';
const FLOW_PATH = '/ui/login/oidc';
/** Time to sign in at the identity provider. */
const FLOW_LIFETIME_S = 10 * 60;

/**
 * A sign-in under way, between the redirect to the identity provider and its redirect back: kept
 * in the browser (signed, HttpOnly) so that any replica can finish what another started.
 */
export interface SignInFlow {
  state: string;
  nonce: string;
  /** The PKCE code verifier, whose S256 challenge went with the authorization request. */
  verifier: string;
  /** The callback URL the authorization request named, which the code exchange must repeat. */
  redirectUri: string;
  /** Epoch milliseconds. */
  exp: number;
}

export function flowCookie(flow: SignInFlow, secret: string, secure: boolean): string {
  return setCookie(FLOW_COOKIE, signValue(flow, derivedKey(secret, 'sign-in flow')), { path: FLOW_PATH, maxAgeS: FLOW_LIFETIME_S, httpOnly: true, secure });
}

export function clearedFlowCookie(secure: boolean): string {
  return setCookie(FLOW_COOKIE, '', { path: FLOW_PATH, maxAgeS: 0, httpOnly: true, secure });
}

export function flowExpiry(nowMs: number): number {
  return nowMs + FLOW_LIFETIME_S * 1000;
}

/** The sign-in this browser started, unless it is missing, tampered with or too old. */
export function signInFlowOf(request: IncomingMessage, secret: string, nowMs: number): SignInFlow | undefined {
  const cookie = readCookie(request, FLOW_COOKIE);
  if (!cookie) return undefined;
  const flow = openSignedValue(cookie, derivedKey(secret, 'sign-in flow'));
  if (!isFlow(flow) || flow.exp <= nowMs) return undefined;
  return flow;
}

function isFlow(value: unknown): value is SignInFlow {
  if (typeof value !== 'object' || value === null) return false;
  const flow = value as Partial<SignInFlow>;
  return [flow.state, flow.nonce, flow.verifier, flow.redirectUri].every((field) => typeof field === 'string') && typeof flow.exp === 'number';
}
