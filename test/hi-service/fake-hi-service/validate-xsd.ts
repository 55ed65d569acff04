// Optional validation of every request against the HI Service's own (licensed) schemas, when
// ERX_HI_XSD_DIR points at them: the Body's payload and the product, user, hpio and timestamp
// headers are each validated as a document. xmllint compiled to WebAssembly (xmllint-wasm) does
// the work, so no native build is needed on Node 20 or 24.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { XMLSerializer, type Element } from '@xmldom/xmldom';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

export interface XsdValidator {
  /** The first schema error of any element, or undefined when all are valid. */
  validate(elements: Element[]): Promise<string | undefined>;
}

/** The directory named by ERX_HI_XSD_DIR, or why XSD validation is skipped. */
export function findXsdDir(env: NodeJS.ProcessEnv = process.env): { dir: string } | { skipReason: string } {
  const dir = env['ERX_HI_XSD_DIR'];
  if (!dir) return { skipReason: 'ERX_HI_XSD_DIR is not set (the HI Service schemas are licensed and not in the repository)' };
  try {
    if (!statSync(dir).isDirectory()) return { skipReason: `ERX_HI_XSD_DIR ${dir} is not a directory` };
  } catch {
    return { skipReason: `ERX_HI_XSD_DIR ${dir} does not exist` };
  }
  if (listXsdFiles(dir).length === 0) return { skipReason: `ERX_HI_XSD_DIR ${dir} holds no .xsd file` };
  return { dir };
}

function listXsdFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.toLowerCase().endsWith('.xsd'))
    .map((name) => join(dir, name));
}

function readTargetNamespace(text: string): string | undefined {
  return /<(?:\w+:)?schema\b[^>]*\btargetNamespace\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
}

/** One schema importing every target namespace the directory declares (first file wins). */
function buildRootSchema(files: XMLFileInfo[]): string {
  const imports = new Map<string, string>();
  for (const file of files) {
    const namespace = readTargetNamespace(String(file.contents));
    if (namespace !== undefined && !imports.has(namespace)) imports.set(namespace, file.fileName);
  }
  const lines = [...imports].map(([namespace, location]) => `<xs:import namespace="${namespace}" schemaLocation="${location}"/>`);
  return `<?xml version="1.0"?><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">${lines.join('')}</xs:schema>`;
}

export function loadXsdValidator(dir: string): XsdValidator {
  const files: XMLFileInfo[] = listXsdFiles(dir).map((path) => ({
    fileName: relative(dir, path).split('\\').join('/'),
    contents: readFileSync(path, 'utf8'),
  }));
  const schema = { fileName: 'erx-hi-root.xsd', contents: buildRootSchema(files) };
  const serializer = new XMLSerializer();
  return {
    async validate(elements) {
      const xml = elements.map((element, index) => ({
        fileName: `${element.localName}-${index}.xml`,
        contents: serializer.serializeToString(element),
      }));
      const result = await validateXML({ xml, schema, preload: files });
      if (result.valid) return undefined;
      const first = result.errors[0];
      return `XSD: ${first?.loc?.fileName ?? 'request'}: ${first?.message ?? result.rawOutput.split('\n')[0]}`;
    },
  };
}
