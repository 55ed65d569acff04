// The documentation holds together: README.md is a front door of at most 200 lines with a
// map of docs/, one folder per reader, each opening with a contents list; BENCHMARKS.md stays
// at most 250 lines; every relative link and #anchor of README.md, BENCHMARKS.md and docs/
// resolves as GitHub renders it, and every page of docs/ is reached from README.md. The checker
// is shown to fail on a copy with broken links planted.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDocs, githubSlug, pageAnchors, pageLinks } from './markdown-links.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const READERS = ['partners', 'portal', 'operators', 'developers'];
const lines = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').trimEnd().split('\n').length;

describe('the documentation of this repository', () => {
  const check = checkDocs(ROOT);

  it('has no broken relative link or anchor', () => {
    expect(check.pages.length).toBeGreaterThan(20);
    expect(check.problems).toEqual([]);
  });

  it('reaches every page of docs/ from README.md', () => {
    expect(check.pages.filter((page) => page.startsWith('docs/')).length).toBeGreaterThan(20);
    expect(check.unreachable).toEqual([]);
  });

  it('keeps README.md a front door of at most 200 lines, linking each reader\'s index', () => {
    expect(lines('README.md')).toBeLessThanOrEqual(200);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
    const targets = pageLinks(readme).map((link) => link.target);
    for (const reader of READERS) expect(targets, reader).toContain(`docs/${reader}/index.md`);
  });

  it('keeps BENCHMARKS.md to at most 250 lines', () => {
    expect(lines('BENCHMARKS.md')).toBeLessThanOrEqual(250);
  });

  it('opens each reader\'s index with a contents list', () => {
    for (const reader of READERS) {
      const text = fs.readFileSync(path.join(ROOT, 'docs', reader, 'index.md'), 'utf8');
      const firstSection = text.split('\n## ')[0]!;
      const listed = firstSection.split('\n').filter((line) => /^- \[[^\]]+\]\([^)#]+\.md\)/.test(line));
      expect(listed.length, reader).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('GitHub heading ids', () => {
  it('lower-case the text, drop punctuation but hyphens and underscores, and turn spaces into hyphens', () => {
    expect(githubSlug('Safe retries (`Idempotency-Key`)')).toBe('safe-retries-idempotency-key');
    expect(githubSlug('erx — partner API of an Australian e-prescribing platform')).toBe('erx--partner-api-of-an-australian-e-prescribing-platform');
    expect(githubSlug('Typed client (@erx/client)')).toBe('typed-client-erxclient');
    expect(githubSlug('The conformance ID (`ERX_CONFORMANCE_ID`)')).toBe('the-conformance-id-erx_conformance_id');
    expect(githubSlug("An organization's practice address and phone (`erx org set-practice`)")).toBe('an-organizations-practice-address-and-phone-erx-org-set-practice');
    expect(githubSlug('Operator CLI (`npx erx ...`)')).toBe('operator-cli-npx-erx-');
    expect(githubSlug('See [the form](form.md) **now**')).toBe('see-the-form-now');
  });

  it('number repeated headings and ignore headings inside code blocks', () => {
    const anchors = pageAnchors('# Title\n## See also\n```sh\n# not a heading\n```\n## See also\n## See also-1\n');
    expect([...anchors]).toEqual(['title', 'see-also', 'see-also-1', 'see-also-1-1']);
  });

  it('find links outside code only', () => {
    const links = pageLinks('[a](x.md) `[b](y.md)` ![c](z.png "t")\n```\n[d](w.md)\n```\n[e]: v.md\n<img src="u.png">\n');
    expect(links).toEqual([
      { target: 'x.md', line: 1 },
      { target: 'z.png', line: 1 },
      { target: 'v.md', line: 5 },
      { target: 'u.png', line: 6 },
    ]);
  });
});

describe('the checker, on a copy with broken links planted', () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-docs-links-'));
  afterAll(() => fs.rmSync(copy, { recursive: true, force: true }));
  for (const item of ['README.md', 'BENCHMARKS.md', 'docs', 'packages/erx-client/README.md']) {
    fs.cpSync(path.join(ROOT, item), path.join(copy, item), { recursive: true });
  }
  const append = (file: string, text: string) => fs.appendFileSync(path.join(copy, file), text);
  const lineCount = (file: string) => fs.readFileSync(path.join(copy, file), 'utf8').split('\n').length;

  it('finds the copy as clean as the repository before anything is planted', () => {
    expect(checkDocs(copy)).toMatchObject({ problems: [], unreachable: [] });
  });

  it('names each planted broken link, anchor and unreachable page, by page and line', () => {
    append('docs/partners/api.md', '\nSee [the missing page](no-such-page.md).\n');
    const missingFileLine = lineCount('docs/partners/api.md') - 1;
    append('docs/operators/cli.md', '\nSee [a heading that is not there](#no-such-heading) and [another page\'s](configuration.md#no-such-setting).\n');
    const anchorLine = lineCount('docs/operators/cli.md') - 1;
    append('README.md', '\n![a screenshot](docs/no-such-screenshot.png) and [outside](../../etc/passwd)\n');
    const readmeLine = lineCount('README.md') - 1;
    fs.writeFileSync(path.join(copy, 'docs/developers/orphan.md'), '# Nobody links here\n\n[Back](index.md)\n');

    const { problems, unreachable } = checkDocs(copy);
    expect(problems).toEqual([
      { file: 'README.md', line: readmeLine, link: 'docs/no-such-screenshot.png', reason: 'no such file: docs/no-such-screenshot.png' },
      { file: 'README.md', line: readmeLine, link: '../../etc/passwd', reason: 'points outside the repository' },
      { file: 'docs/operators/cli.md', line: anchorLine, link: '#no-such-heading', reason: 'no heading #no-such-heading in docs/operators/cli.md' },
      { file: 'docs/operators/cli.md', line: anchorLine, link: 'configuration.md#no-such-setting', reason: 'no heading #no-such-setting in docs/operators/configuration.md' },
      { file: 'docs/partners/api.md', line: missingFileLine, link: 'no-such-page.md', reason: 'no such file: docs/partners/no-such-page.md' },
    ]);
    expect(unreachable).toEqual(['docs/developers/orphan.md']);
  });
});
