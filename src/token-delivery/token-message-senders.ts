// The two channels a token message goes out by: SMS through Twilio's Messages API, e-mail
// through SMTP (nodemailer). Each answers with an outcome class of token delivery's retry table
// (token-message-rules.ts): Twilio's answers are HTTP and classed by the toolkit's HTTP rule;
// an SMTP reply of 4xx is `deferred` (try later), one of 5xx `refused` (for good). A send never throws.
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Config } from '../config.ts';
import { classifyHttpStatus } from '../platform/delivery/index.ts';
import type { TokenOutcomeClass } from './token-message-rules.ts';
import { TOKEN_EMAIL_SUBJECT } from './token-message-text.ts';

export interface SendResult {
  outcome: TokenOutcomeClass;
  /** The provider's id of the message (Twilio's sid, the SMTP message id). */
  providerId: string | null;
  /** Why it failed, without the destination. */
  error: string | null;
}

export interface TokenMessageSenders {
  send(message: { channel: string; destination: string; body: string }): Promise<SendResult>;
  close(): void;
}

/** nodemailer is loaded by the first e-mail, not by every start: most processes send none. */
export function openTokenMessageSenders(config: Pick<Config, 'sms' | 'smtp'>, timeoutMs: number): TokenMessageSenders {
  let mailer: Promise<Transporter> | undefined;
  let opened: Transporter | undefined;
  const openMailer = (smtp: NonNullable<Config['smtp']>) =>
    (mailer ??= import('nodemailer').then(({ default: nodemailer }) => (opened = nodemailer.createTransport(smtpOptionsOf(smtp, timeoutMs)))));
  return {
    async send(message) {
      if (message.channel === 'SMS' && config.sms) return sendSms(config.sms, message, timeoutMs);
      if (message.channel === 'EMAIL' && config.smtp) return sendEmail(await openMailer(config.smtp), config.smtp.from, message);
      return { outcome: 'unconfigured', providerId: null, error: `no ${message.channel} channel is configured` };
    },
    close() {
      opened?.close();
    },
  };
}

async function sendSms(sms: NonNullable<Config['sms']>, message: { destination: string; body: string }, timeoutMs: number): Promise<SendResult> {
  const url = `${sms.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(sms.accountSid)}/Messages.json`;
  const form = new URLSearchParams({ To: message.destination, From: sms.from, Body: message.body });
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${sms.accountSid}:${sms.authToken}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return { outcome: timedOut ? 'timeout' : 'connect', providerId: null, error: timedOut ? 'Twilio did not answer in time' : 'Twilio could not be reached' };
  }
  const answer = (await response.json().catch(() => ({}))) as { sid?: unknown; code?: unknown; message?: unknown };
  const outcome = classifyHttpStatus(response.status);
  if (outcome === 'success') return { outcome, providerId: typeof answer.sid === 'string' ? answer.sid : null, error: null };
  const code = typeof answer.code === 'number' || typeof answer.code === 'string' ? ` (code ${answer.code})` : '';
  return { outcome, providerId: null, error: `Twilio answered ${response.status}${code}` };
}

/** ERX_SMTP_URL as nodemailer's options: smtps is TLS from the start, smtp upgrades with STARTTLS when offered. */
function smtpOptionsOf(smtp: { url: string; requireTls: boolean }, timeoutMs: number): SMTPTransport.Options {
  const parsed = new URL(smtp.url);
  const secure = parsed.protocol === 'smtps:';
  const auth = parsed.username ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } : undefined;
  const port = parsed.port ? Number(parsed.port) : secure ? 465 : 587;
  // Production: a server that does not offer STARTTLS is refused, never sent the token in clear.
  return { host: parsed.hostname, port, secure, requireTLS: smtp.requireTls, auth, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs };
}

async function sendEmail(mailer: Transporter, from: string, message: { destination: string; body: string }): Promise<SendResult> {
  try {
    const info = await mailer.sendMail({ from, to: message.destination, subject: TOKEN_EMAIL_SUBJECT, text: message.body });
    return { outcome: 'success', providerId: typeof info.messageId === 'string' ? info.messageId : null, error: null };
  } catch (error) {
    const code = (error as { responseCode?: unknown }).responseCode;
    if (typeof code === 'number') return { outcome: code >= 500 ? 'refused' : 'deferred', providerId: null, error: `the SMTP server answered ${code}` };
    return { outcome: 'connect', providerId: null, error: 'the SMTP server could not be reached' };
  }
}
