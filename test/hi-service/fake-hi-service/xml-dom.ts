// Small DOM helpers over @xmldom/xmldom for the fake's checks. A check that fails throws a
// RequestViolation whose message names what the real gateway would refuse.
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';

export class RequestViolation extends Error {
  override readonly name = 'RequestViolation';
}

export function violation(message: string): never {
  throw new RequestViolation(message);
}

export function parseXml(text: string, what: string): Document {
  const problems: string[] = [];
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') problems.push(message);
    },
  });
  let document: Document;
  try {
    document = parser.parseFromString(text, 'text/xml');
  } catch (error) {
    return violation(`${what} is not well-formed XML (${(error as Error).message.split('\n')[0]})`);
  }
  if (problems.length > 0 || !document.documentElement) {
    return violation(`${what} is not well-formed XML (${problems[0] ?? 'no root element'})`);
  }
  return document;
}

export function childElements(parent: Element): Element[] {
  const children: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === node.ELEMENT_NODE) children.push(node as Element);
  }
  return children;
}

export function describeElement(element: Element): string {
  return `{${element.namespaceURI ?? ''}}${element.localName}`;
}

export function isElement(element: Element | undefined, ns: string, localName: string): element is Element {
  return element !== undefined && element.namespaceURI === ns && element.localName === localName;
}

/** The children named (ns, localName); more than `max` is a violation. */
export function findChildren(parent: Element, ns: string, localName: string): Element[] {
  return childElements(parent).filter((child) => isElement(child, ns, localName));
}

export function findChild(parent: Element, ns: string, localName: string): Element | undefined {
  const found = findChildren(parent, ns, localName);
  if (found.length > 1) violation(`${parent.localName} has more than one ${localName}`);
  return found[0];
}

export function requireChild(parent: Element, ns: string, localName: string): Element {
  return findChild(parent, ns, localName) ?? violation(`${parent.localName} lacks ${localName} ({${ns}})`);
}

/** The text of an element that must hold text only (no child elements), trimmed. */
export function readText(element: Element): string {
  if (childElements(element).length > 0) violation(`${element.localName} must hold text, not elements`);
  return (element.textContent ?? '').trim();
}

export function readChildText(parent: Element, ns: string, localName: string): string | undefined {
  const child = findChild(parent, ns, localName);
  return child === undefined ? undefined : readText(child);
}

export function requireChildText(parent: Element, ns: string, localName: string): string {
  const text = readText(requireChild(parent, ns, localName));
  if (text === '') violation(`${parent.localName}/${localName} is empty`);
  return text;
}

export function readXmlId(element: Element): string | null {
  return element.getAttributeNS('http://www.w3.org/XML/1998/namespace', 'id') || null;
}

/** Every element of the document, in document order. */
export function allElements(root: Element): Element[] {
  const found: Element[] = [root];
  for (const child of childElements(root)) found.push(...allElements(child));
  return found;
}

/** Escapes text for element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
