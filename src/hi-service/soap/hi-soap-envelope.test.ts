// The request envelope: SOAP 1.2 with WS-Addressing (Action, urn:uuid MessageID, anonymous
// ReplyTo, To, never FaultTo) and the HI headers in the message contracts' order, each with its
// qualified ids, the timestamp from the injected clock, and xml:ids for the signature.
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HI_USER_QUALIFIER } from './index.ts';
import { soapContentType, writeEnvelope, type EnvelopeInput } from './hi-soap-envelope.ts';
import { NS, SEARCH_IHI, SEARCH_PROVIDER_INDIVIDUAL } from './hi-soap-wire.ts';

const INPUT: EnvelopeInput = {
  operation: SEARCH_IHI,
  payload: '<ihiSvc:searchIHI/>',
  endpoint: 'https://hi.example.test/soap/services/',
  product: { vendorQualifier: 'http://ns.medicareaustralia.gov.au/mcaVendorId/1.0', vendorId: 'ERX00001', productName: 'erx', productVersion: '0.1.0' },
  userId: 'user-42',
  hpio: '8003624166667003',
  now: new Date('2026-11-26T10:00:00.000Z'),
};

function parse(xml: string): Element {
  return new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
}

const kids = (element: Element) => Array.from(element.childNodes).filter((node): node is Element => node.nodeType === 1);
const child = (element: Element, name: string) => kids(element).find((k) => k.localName === name)!;
const texts = (element: Element) => kids(element).map((k) => k.textContent);

describe('request envelope', () => {
  const envelope = writeEnvelope(INPUT);
  const root = parse(envelope.xml);
  const [header, body] = kids(root);

  it('is a SOAP 1.2 envelope with a Header and a Body carrying the payload', () => {
    expect([root.namespaceURI, root.localName]).toEqual([NS.soap, 'Envelope']);
    expect(kids(root).map((k) => `${k.namespaceURI} ${k.localName}`)).toEqual([`${NS.soap} Header`, `${NS.soap} Body`]);
    expect(kids(body!).map((k) => `${k.namespaceURI} ${k.localName}`)).toEqual([`${NS.ihiSvc} searchIHI`]);
  });

  it('has the addressing and HI headers in order, and no FaultTo', () => {
    expect(kids(header!).map((k) => `${k.namespaceURI === NS.wsa ? 'wsa' : k.namespaceURI === NS.ce ? 'hi' : '?'}:${k.localName}`)).toEqual([
      'wsa:Action', 'wsa:MessageID', 'wsa:ReplyTo', 'wsa:To', 'hi:product', 'hi:signature', 'hi:timestamp', 'hi:user', 'hi:hpio',
    ]);
    expect(envelope.xml).not.toContain('FaultTo');
  });

  it('addresses the operation: its action, a urn:uuid message id, an anonymous reply and the endpoint', () => {
    expect(child(header!, 'Action').textContent).toBe('http://ns.electronichealth.net.au/hi/svc/ConsumerSearchIHI/3.0/ConsumerSearchIHIPortType/searchIHIRequest');
    expect(child(header!, 'MessageID').textContent).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(child(header!, 'MessageID').textContent).toBe(envelope.messageId);
    expect(texts(child(header!, 'ReplyTo'))).toEqual(['http://www.w3.org/2005/08/addressing/anonymous']);
    expect(child(header!, 'To').textContent).toBe(INPUT.endpoint);
    expect(writeEnvelope(INPUT).messageId).not.toBe(envelope.messageId);
  });

  it('names the provider search action for the provider operation', () => {
    const provider = parse(writeEnvelope({ ...INPUT, operation: SEARCH_PROVIDER_INDIVIDUAL }).xml);
    expect(child(kids(provider)[0]!, 'Action').textContent).toBe(
      'http://ns.electronichealth.net.au/hi/svc/ProviderSearchForProviderIndividual/5.0.0/ProviderSearchForProviderIndividualPortType/searchForProviderIndividualRequest',
    );
  });

  it('writes the product header: vendor qualified id, name, version and platform', () => {
    const product = child(header!, 'product');
    expect(kids(product).map((k) => k.localName)).toEqual(['vendor', 'productName', 'productVersion', 'platform']);
    expect(texts(child(product, 'vendor'))).toEqual(['http://ns.medicareaustralia.gov.au/mcaVendorId/1.0', 'ERX00001']);
    expect(kids(child(product, 'vendor')).every((k) => k.namespaceURI === NS.qid)).toBe(true);
    expect(texts(product).slice(1)).toEqual(['erx', '0.1.0', expect.stringMatching(/^Node\.js /)]);
  });

  it('writes the user with the default qualifier, or the configured one', () => {
    expect(texts(child(header!, 'user'))).toEqual([DEFAULT_HI_USER_QUALIFIER, 'user-42']);
    const configured = parse(writeEnvelope({ ...INPUT, userQualifier: 'http://example.org/id/erx/userid/1.0' }).xml);
    expect(texts(child(kids(configured)[0]!, 'user'))).toEqual(['http://example.org/id/erx/userid/1.0', 'user-42']);
  });

  it("writes the organization's HPI-O as a qualified id and the timestamp from the clock", () => {
    expect(texts(child(header!, 'hpio'))).toEqual(['http://ns.electronichealth.net.au/id/hi/hpio/1.0', '8003624166667003']);
    expect(texts(child(header!, 'timestamp'))).toEqual(['2026-11-26T10:00:00.000Z']);
    expect(kids(child(header!, 'signature'))).toEqual([]);
  });

  it('gives the Body, user and timestamp the xml:ids it reports', () => {
    const idOf = (element: Element) => element.getAttributeNS(NS.xml, 'id');
    expect(idOf(body!)).toBe(envelope.ids.body);
    expect(idOf(child(header!, 'user'))).toBe(envelope.ids.user);
    expect(idOf(child(header!, 'timestamp'))).toBe(envelope.ids.timestamp);
    expect(new Set(Object.values(envelope.ids)).size).toBe(3);
  });

  it('names SOAP 1.2 and the action in the content type', () => {
    expect(soapContentType(SEARCH_IHI.action)).toBe(`application/soap+xml; charset=utf-8; action="${SEARCH_IHI.action}"`);
  });
});
