// The restriction text without its HTML, as a table of cases, and in time linear in its length:
// inputs that made the former regular expression rescan the text from every `<` finish at once.
import { describe, expect, it } from 'vitest';
import { plainTextOf } from './pbs-html-text.ts';

describe('plainTextOf', () => {
  it.each([
    ['<p>Chronic severe disabling pain</p><p>Patient must be unable to use non-opioid analgesics &amp; the pain must be opioid-responsive.</p>', 'Chronic severe disabling pain\nPatient must be unable to use non-opioid analgesics & the pain must be opioid-responsive.'],
    ['<ul><li>one</li><li>two<br/>three</li></ul>', 'one\ntwo\nthree'],
    ['line<BR >break< /p >end', 'line\nbreak\nend'],
    ['<span class="x">Major</span>  depressive\tdisorders', 'Major depressive disorders'],
    ['&lt;b&gt; is shown, &quot;quoted&quot;, it&#39;s &apos;so&apos;,&nbsp;spaced', `<b> is shown, "quoted", it's 'so', spaced`],
    ['&amp;lt; decodes once', '&lt; decodes once'],
    ['a < b and c', 'a < b and c'],
    ['a < b <i>c</i>', 'a c'],
    ['<h2>Title</h2>text', 'Title\ntext'],
    ['', ''],
  ])('%j → %j', (html, text) => {
    expect(plainTextOf(html)).toBe(text);
  });

  // The former `<[^>]*>` took about 3 s for 40,000 unclosed `<` and four times as long for each
  // doubling; each of these is a single pass. The timeout only stops a regression from hanging the run.
  it.each([
    ['200,000 unclosed <', '<'.repeat(200_000), '<'.repeat(200_000)],
    ['200,000 < then one >', `${'<'.repeat(200_000)}>after`, 'after'],
    ['100,000 empty tags', '<>'.repeat(100_000), ''],
    ['200,000 & without ;', '&'.repeat(200_000), '&'.repeat(200_000)],
    ['200,000 spaces between words', `a${' '.repeat(200_000)}b`, 'a b'],
  ])('strips %s in one pass', (_name, html, text) => {
    expect(plainTextOf(html)).toBe(text);
  }, 5_000);
});
