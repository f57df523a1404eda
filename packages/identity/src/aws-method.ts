/**
 * AWS IAM principals: the workload's signed `GetCallerIdentity` request, checked, is sent to
 * the identity's STS endpoint, whose answer names the caller's account and ARN (an assumed
 * role's ARN matched as the role's). STS refusing the signature is a 401; STS out of reach a 502.
 */
import { XMLParser } from 'fast-xml-parser';
import {
  IdentityRejectedError,
  UpstreamUnavailableError,
  matchesAny,
  type AwsSettings,
  type SignedAwsRequest,
  type VerifiedWorkload,
} from '@svc/domain';
import { checkSignedRequest } from './aws-signed-request.ts';
import { shown } from './claim-patterns.ts';
import { callUpstream } from './upstream-http.ts';

const ASSUMED_ROLE = /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/;

// Values stay text: an account id such as 012345678901 must keep its leading zero.
const xml = new XMLParser({ parseTagValue: false, ignoreDeclaration: true });

interface CallerIdentity {
  Account?: unknown;
  Arn?: unknown;
}

export async function verifyAws(
  settings: AwsSettings,
  request: SignedAwsRequest,
  timeoutMs: number,
): Promise<VerifiedWorkload> {
  const call = checkSignedRequest(settings, request);
  const res = await callUpstream({
    name: 'STS',
    method: 'POST',
    timeoutMs,
    maxBytes: 64 * 1024,
    ...call,
  });
  const contentType = String(res.headers['content-type'] ?? '');
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    const code = errorCode(res.body, contentType);
    throw new IdentityRejectedError(
      'upstream_rejected',
      `STS refused the signed request${code ? ` (${shown(code)})` : ''}`,
    );
  }
  if (res.status !== 200) throw new UpstreamUnavailableError(`STS: status ${res.status}`);
  const result = (
    parse(res.body, contentType) as {
      GetCallerIdentityResponse?: { GetCallerIdentityResult?: CallerIdentity };
    }
  )?.GetCallerIdentityResponse?.GetCallerIdentityResult;
  const account = typeof result?.Account === 'string' ? result.Account : '';
  const arn = typeof result?.Arn === 'string' ? result.Arn : '';
  if (!account || !arn)
    throw new UpstreamUnavailableError('STS: the answer names no Account and Arn');
  if (!settings.accounts.includes(account)) {
    throw new IdentityRejectedError('not_allowed', `account ${account} is not allowed`);
  }
  const principal = principalArn(arn);
  if (settings.principalArns.length > 0 && !matchesAny(settings.principalArns, principal)) {
    throw new IdentityRejectedError('not_allowed', `principal ${shown(principal)} is not allowed`);
  }
  return { subject: principal };
}

/** `arn:aws:sts::1234:assumed-role/checkout/i-0abc` → `arn:aws:iam::1234:role/checkout`. */
export function principalArn(arn: string): string {
  const assumed = ASSUMED_ROLE.exec(arn);
  return assumed ? `arn:${assumed[1]}:iam::${assumed[2]}:role/${assumed[3]}` : arn;
}

/** STS answers XML, or JSON when asked for it. */
function parse(body: string, contentType: string): unknown {
  try {
    return contentType.includes('json') ? JSON.parse(body) : xml.parse(body);
  } catch {
    throw new UpstreamUnavailableError('STS: the answer is neither XML nor JSON');
  }
}

/** The error code of a refusal (`SignatureDoesNotMatch`), when the answer says one. */
function errorCode(body: string, contentType: string): string | undefined {
  let answer: unknown;
  try {
    answer = parse(body, contentType);
  } catch {
    return undefined;
  }
  const code = (answer as { ErrorResponse?: { Error?: { Code?: unknown } } })?.ErrorResponse?.Error
    ?.Code;
  return typeof code === 'string' ? code : undefined;
}
